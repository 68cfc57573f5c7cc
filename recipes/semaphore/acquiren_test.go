package semaphore_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

func TestAcquireN_CreatesAllLeasesInOneTransaction(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSemaphore(t, c, path, 4)

	ls, err := s.AcquireN(ctx, 3) // the first: the directory is made on the way
	require.NoError(t, err)
	require.Len(t, ls, 3)
	ids := map[string]bool{}
	for _, l := range ls {
		assert.Regexp(t, leaseNode, zkpath.Base(l.Node()))
		id, ok := zkpath.ProtectionID(zkpath.Base(l.Node()))
		require.True(t, ok)
		ids[id] = true
	}
	assert.Len(t, ids, 3, "each lease node has a protection id of its own")
	require.NoError(t, s.Release(ctx, ls...))
	assert.Equal(t, 0, nodeCount(t, c, path))

	keepDirectories(t, path, 4)
	before := requests()
	ls, err = s.AcquireN(ctx, 3)
	require.NoError(t, err)
	require.NoError(t, leases.ReleaseAll(ctx, ls...))
	// guard create and list, one transaction, guard delete, and one
	// transaction returning all three.
	assert.Equal(t, int64(5), requests()-before)
}

func TestAcquireN_TimeoutTakesNothing(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	held, err := newSemaphore(t, c, path, 3).AcquireN(ctx, 2)
	require.NoError(t, err)

	s := newSemaphore(t, other, path, 3)
	ls, err := s.AcquireNTimeout(ctx, 2, heldTimeout)
	require.ErrorIs(t, err, semaphore.ErrNotAcquired, "one lease is free, two are asked")
	assert.Nil(t, ls)
	require.Eventually(t, func() bool { return nodeCount(t, c, path) == 2 }, 10*time.Second, 10*time.Millisecond,
		"only the holder's leases remain")
	one, err := s.AcquireTimeout(ctx, 5*time.Second)
	require.NoError(t, err, "the free lease is still free")
	require.NoError(t, leases.ReleaseAll(ctx, append(held, one)...))
	assert.Equal(t, 0, nodeCount(t, c, path))
}

// Curator takes several leases one at a time: two clients asking for 2 of 3
// can each get one and wait for ever. Here each gets both or none.
func TestAcquireN_TwoClientsAskingForTwoOfThreeNeverDeadlock(t *testing.T) {
	rounds := 100
	if testing.Short() {
		rounds = 20
	}
	path := zktest.UniquePath(t)
	ctx := testContext(t)
	var holding, peak atomic.Int64
	var wg sync.WaitGroup
	for range 2 {
		s := newSemaphore(t, connect(t, zktest.Servers(t)), path, 3)
		wg.Go(func() { // ends after its rounds, or at the first failure
			for range rounds {
				ls, err := s.AcquireNTimeout(ctx, 2, 20*time.Second)
				if !assert.NoError(t, err, "a deadlock would time out") {
					return
				}
				now := holding.Add(2)
				raise(&peak, now)
				assert.LessOrEqual(t, now, int64(3), "more leases held than the maximum")
				holding.Add(-2)
				if !assert.NoError(t, leases.ReleaseAll(ctx, ls...)) {
					return
				}
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int64(2), peak.Load(), "two leases at a time: the clients took turns")
	assert.Equal(t, 0, nodeCount(t, connect(t, zktest.Servers(t)), path))
}
