package zktesting_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/zktesting"
)

// configOf reads /zookeeper/config through the server at addr.
func configOf(t *testing.T, addr string) string {
	t.Helper()
	conn, _, err := zk.Connect([]string{addr}, 4*time.Second, zk.WithLogInfo(false))
	require.NoError(t, err)
	defer conn.Close()
	data, _, err := conn.Get("/zookeeper/config")
	require.NoError(t, err)
	return string(data)
}

func TestEnsemble_ReconfigAddsMembersAndRemovesOthers(t *testing.T) {
	t.Parallel()
	integration(t)
	ctx := testContext(t)
	e, err := zktesting.StartEnsemble(ctx, 3, zktesting.WithReconfig())
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, e.Close()) })
	first := configOf(t, e.Addrs()[0])
	for i, addr := range e.Addrs() {
		assert.Contains(t, first, "server."+string(rune('1'+i))+"=", "member %d is in the configuration", i)
		assert.Contains(t, first, ";"+addr, "with its client address")
	}

	added, err := e.AddMembers(ctx, 2)
	require.NoError(t, err)
	assert.Equal(t, []int{3, 4}, added)
	require.Len(t, e.Addrs(), 5)
	grown := configOf(t, e.Addrs()[3])
	assert.Contains(t, grown, "server.4=")
	assert.Contains(t, grown, ";"+e.Addrs()[4])

	require.NoError(t, e.RemoveMembers(ctx, 0, 1, 2))
	for i := range 3 {
		require.NoError(t, e.StopMember(i))
	}
	moved := configOf(t, e.Addrs()[4])
	assert.NotContains(t, moved, "server.1=")
	assert.Equal(t, 2, strings.Count(moved, "server."), moved)
	leader, err := e.Leader(ctx)
	require.NoError(t, err)
	assert.Contains(t, added, leader, "one of the new members leads")
}

func TestEnsemble_ReconfigNeedsWithReconfig(t *testing.T) {
	var e zktesting.Ensemble
	_, err := e.AddMembers(context.Background(), 1)
	assert.ErrorIs(t, err, zktesting.ErrNotReconfigurable)
	assert.ErrorIs(t, e.RemoveMembers(context.Background(), 0), zktesting.ErrNotReconfigurable)
}
