package framework_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// A background delete that no retry can cure ends at once and says so
// once, with the path, instead of retrying every 5 s for the client's life.
func TestDeleteInBackground_GivesUpOnErrorsNoRetryCures(t *testing.T) {
	logs := &syncBuffer{}
	c := connect(t, zktest.Servers(t), framework.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	ctx := testContext(t)
	base := zktest.UniquePath(t)

	full := base + "/not-empty"
	_, err := c.Create(ctx, full+"/child", nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	// A parent without the delete permission: its child cannot be deleted.
	locked := base + "/locked"
	_, err = c.Create(ctx, locked, nil, framework.Persistent, framework.WithACL(zk.WorldACL(zk.PermRead|zk.PermCreate)))
	require.NoError(t, err)
	_, err = c.Create(ctx, locked+"/child", nil, framework.Persistent)
	require.NoError(t, err)

	for _, path := range []string{full, locked + "/child"} {
		done, err := c.DeleteInBackground(path)
		require.NoError(t, err)
		zktest.WaitClosed(t, done, 10*time.Second, "the background delete of "+path)
		ok, _, err := c.Exists(ctx, path)
		require.NoError(t, err)
		assert.True(t, ok, "%s is still there", path)
		assert.Equal(t, 1, strings.Count(logs.String(), "path="+path+" "), "logged once: %s", logs.String())
	}
}
