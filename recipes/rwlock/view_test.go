package rwlock

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// A queue with a downgraded read node at its writer's key, and a Curator
// reader and writer behind: Go's views of the queue (each lock's
// Participants, and the whole queue as the drivers sort it) are Curator's
// (getParticipantNodes, and LockInternals.getSortedChildren with the read/
// write driver). Curator's sort is stable, so the tie keeps the order in
// which the server listed the two nodes, which need not be their names'
// order; the test goes on until it has seen a tie listed against the
// names' order.
func TestInterop_ViewsAgreeWithADowngradeTie(t *testing.T) {
	servers := zktest.Servers(t)
	curator := zktest.StartCurator(t, servers)
	c := zktest.Connect(t, servers)
	ctx := zktest.Context(t)
	const tries = 32
	againstNames := 0
	for i := 0; i < tries && againstNames == 0; i++ {
		path := fmt.Sprintf("%s-%d", zktest.UniquePath(t), i)
		rw, err := New(c, path)
		require.NoError(t, err)
		w, err := rw.WriteLock().Acquire(ctx)
		require.NoError(t, err)
		var wg sync.WaitGroup
		for k, write := range []bool{false, true} {
			handle := fmt.Sprintf("h%d-%d", i, k)
			wg.Go(func() {
				ok, err := curator.RWAcquire(ctx, handle, path, write, time.Minute)
				if assert.NoError(t, err) && assert.True(t, ok) {
					assert.NoError(t, curator.RWRelease(ctx, handle, write))
				}
			})
			require.Eventually(t, func() bool { return len(zktest.Children(t, c, path)) == k+2 }, 20*time.Second, 5*time.Millisecond)
		}
		r, err := rw.ReadLock().Acquire(ctx)
		require.NoError(t, err)
		require.Equal(t, sortKey(zkpath.Base(w.Node())), sortKey(zkpath.Base(r.Node())), "a tie")

		listed, _, err := c.Children(ctx, path)
		require.NoError(t, err)
		goQueue := slices.Clone(listed)
		readDriver{}.Sort(goQueue, readName)
		curatorQueue, err := curator.RWQueue(ctx, path)
		require.NoError(t, err)
		assert.Equal(t, curatorQueue, goQueue, "try %d: the whole queue", i)
		for _, write := range []bool{false, true} {
			l := rw.ReadLock()
			if write {
				l = rw.WriteLock()
			}
			goView, err := l.Participants(ctx)
			require.NoError(t, err)
			curatorView, err := curator.RWParticipants(ctx, path, write)
			require.NoError(t, err)
			assert.Equal(t, curatorView, nodesOf(goView), "try %d: participants (write %v)", i, write)
		}
		wName, rName := zkpath.Base(w.Node()), zkpath.Base(r.Node())
		if (slices.Index(listed, wName) < slices.Index(listed, rName)) != (wName < rName) {
			againstNames++
		}

		require.NoError(t, r.Release(context.Background()))
		require.NoError(t, w.Release(context.Background()))
		wg.Wait()
	}
	require.NotZero(t, againstNames, "in %d tries the server never listed a tie against the names' order", tries)
}

// nodesOf returns the participants' nodes, in order.
func nodesOf(ps []Participant) []string {
	nodes := make([]string, len(ps))
	for i, p := range ps {
		nodes[i] = p.Node
	}
	return nodes
}
