package reliability_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/reliability/internal/chaos"
)

// The chaos run's Curator latch worker leaves no latch behind when its
// context ends as it starts the peer's latch: the peer carries a start out
// even when the caller has stopped waiting (zktest.Curator.Do), so the
// adapter closes what it may have started. Otherwise the latch keeps its
// node (a _c_...-latch- node under the election when every latch of the
// run has closed) and its handle refuses every later start.
func TestCuratorLatch_AnAcquireWhoseContextEndsLeavesNoLatchBehind(t *testing.T) {
	t.Parallel()
	servers := zktest.Servers(t)
	observer := zktest.Connect(t, servers)
	curator := zktest.StartCurator(t, servers)
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	latch := chaos.CuratorLatch{Peer: curator, Handle: "chaos-latch", Path: path, Observer: observer}

	ended, cancel := context.WithCancel(ctx)
	cancel() // ends as the start is sent
	_, err := latch.Acquire(ended)
	require.ErrorIs(t, err, context.Canceled)

	held, err := latch.Acquire(ctx)
	require.NoError(t, err, "the handle is free again")
	require.NoError(t, held.Release(ctx))
	require.Eventually(t, func() bool { return len(zktest.Children(t, observer, path)) == 0 },
		10*time.Second, 10*time.Millisecond, "no latch node is left")
}
