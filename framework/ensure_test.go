package framework_test

import (
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// EnsurePath of a path that exists needs no right to create in its
// parent: the server checks that right before it checks existence, so a
// path that exists is asked about, not created again.
func TestEnsurePath_AnExistingPathNeedsNoCreateRight(t *testing.T) {
	ctx := testContext(t)
	admin := connect(t, zktest.Servers(t), framework.WithAuth("digest", []byte("admin:pw")))
	top := zktest.UniquePath(t)
	require.NoError(t, admin.EnsurePath(ctx, top))
	readOnly := top + "/read-only"
	_, err := admin.Create(ctx, readOnly, nil, framework.Persistent, framework.WithACL(append(zk.WorldACL(zk.PermRead), zk.DigestACL(zk.PermAll, "admin", "pw")...)))
	require.NoError(t, err)
	existing := readOnly + "/existing"
	_, err = admin.Create(ctx, existing, nil, framework.Persistent)
	require.NoError(t, err)

	c := connect(t, zktest.Servers(t))
	require.NoError(t, c.EnsurePath(ctx, existing), "the path is there")
	require.NoError(t, c.EnsurePath(ctx, existing+"/below"), "only what is missing is created")
	ok, _, err := c.Exists(ctx, existing+"/below")
	require.NoError(t, err)
	assert.True(t, ok)
	err = c.EnsurePath(ctx, readOnly+"/missing")
	assert.ErrorIs(t, err, zk.ErrNoAuth, "what is missing still needs the right")
}
