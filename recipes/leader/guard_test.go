package leader_test

import (
	"context"
	pathpkg "path"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// The guard applies a write while the term stands, and refuses it, with
// ErrLost, once the term has ended: also while the term's node still
// stands, its delete held up by an unreachable server.
func TestLeadership_GuardFailsOnceTheTermHasEndedEvenWhileTheNodeStands(t *testing.T) {
	servers := zktest.Servers(t)
	other := connect(t, servers)
	proxy := zktest.NewProxy(t, servers)
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	p := zktest.UniquePath(t)
	config := p + "-config"
	_, err := other.Create(testContext(t), config, nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	l := startLatch(t, c, p, leader.WithErrorPolicy(framework.SessionErrorPolicy))
	lead := await(t, l, 10*time.Second, "the latch")
	taken := lead.Guard()
	_, err = other.Multi(testContext(t), taken, framework.SetOp(config, []byte("leader"), -1))
	require.NoError(t, err, "the guard holds while the term does")

	proxy.Pause()
	ctx, cancel := context.WithTimeout(testContext(t), 200*time.Millisecond)
	defer cancel()
	require.Error(t, l.Close(ctx))
	waitClosed(t, lead.Lost(), time.Second, "the term")
	require.Equal(t, []string{pathpkg.Base(lead.Node())}, children(t, other, p), "the node still stands")
	_, err = other.Multi(testContext(t), lead.Guard(), framework.SetOp(config, []byte("stale"), -1))
	require.ErrorIs(t, err, leader.ErrLost, "a guard taken after the term")
	data, _, err := other.Get(testContext(t), config)
	require.NoError(t, err)
	assert.Equal(t, "leader", string(data))

	// A guard taken during the term checks the node alone: it passes while
	// the node stands, when no successor can lead yet, and fails after.
	proxy.Resume()
	require.Eventually(t, func() bool { return len(children(t, other, p)) == 0 }, 15*time.Second, 10*time.Millisecond)
	_, err = other.Multi(testContext(t), taken, framework.SetOp(config, []byte("stale"), -1))
	require.ErrorIs(t, err, leader.ErrLost, "a guard taken during the term, once the node is gone")
}
