package semaphore_test

import (
	"fmt"
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

// Go and Curator InterProcessSemaphoreV2 clients on one path share its
// leases, and each lists the other's lease nodes as participants.
func TestCurator_SharesTheLeasesAndSeesEachOthersParticipants(t *testing.T) {
	servers := zktest.Servers(t)
	cur := zktest.StartCurator(t, servers)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSemaphore(t, c, path, 3, semaphore.WithData([]byte("go-host/1")))

	curLeases := make([]string, 0, 2)
	for _, h := range []string{"a", "b"} {
		names, ok, err := cur.SemAcquire(ctx, h, path, 3, 1, 10*time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		curLeases = append(curLeases, names...)
	}
	mine, err := s.AcquireTimeout(ctx, 10*time.Second)
	require.NoError(t, err, "the third of three leases")
	_, err = s.AcquireTimeout(ctx, heldTimeout)
	require.ErrorIs(t, err, semaphore.ErrNotAcquired, "Go does not take a fourth")
	_, ok, err := cur.SemAcquire(ctx, "c", path, 3, 1, 300*time.Millisecond)
	require.NoError(t, err)
	assert.False(t, ok, "nor does Curator")

	assertParticipants(t, s, cur, mine, curLeases)

	got := make(chan result[bool], 1)
	go func() { // ends when Curator's acquire answers: after Go's release
		_, ok, err := cur.SemAcquire(ctx, "c", path, 3, 1, 20*time.Second)
		got <- result[bool]{ok, err}
	}()
	require.NoError(t, mine.Release(ctx))
	select {
	case r := <-got:
		require.NoError(t, r.err)
		assert.True(t, r.v, "Curator gets the lease Go released")
	case <-time.After(20 * time.Second):
		t.Fatal("Curator did not get the released lease")
	}
	require.NoError(t, cur.SemRelease(ctx, "a"))
	ls, err := s.AcquireNTimeout(ctx, 1, 10*time.Second)
	require.NoError(t, err, "Go gets the lease Curator released")
	require.NoError(t, leases.ReleaseAll(ctx, ls...))
	for _, h := range []string{"b", "c"} {
		require.NoError(t, cur.SemRelease(ctx, h))
	}
	assert.Equal(t, 0, nodeCount(t, c, path))
}

// assertParticipants checks that Go and Curator both list mine and
// curLeases as the participants, with Go's data and Curator's.
func assertParticipants(t *testing.T, s *semaphore.Semaphore, cur *zktest.Curator, mine *leases.Lease, curLeases []string) {
	t.Helper()
	ctx := testContext(t)
	ps, err := s.Participants(ctx)
	require.NoError(t, err)
	var names []string
	for _, p := range ps {
		names = append(names, zkpath.Base(p.Node))
		assert.Regexp(t, leaseNode, zkpath.Base(p.Node))
		assert.Equal(t, s.Path()+"/leases", zkpath.Parent(p.Node))
		if p.Node == mine.Node() {
			assert.Equal(t, "go-host/1", p.ID)
		} else {
			assert.NotEmpty(t, p.ID, "Curator writes its default data, the host's address")
		}
	}
	assert.ElementsMatch(t, append([]string{zkpath.Base(mine.Node())}, curLeases...), names, "Go sees Curator's leases")
	curNames, err := cur.SemParticipants(ctx, s.Path(), 3)
	require.NoError(t, err)
	assert.ElementsMatch(t, names, curNames, "Curator sees Go's lease")
}

// Go and Curator clients loop on one semaphore: never more holders than
// leases, together.
func TestCurator_MixedClientsNeverHoldMoreThanTheMaximum(t *testing.T) {
	t.Parallel()
	const maxLeases, goClients, curHandles = 2, 3, 3
	rounds := 30
	if testing.Short() {
		rounds = 8
	}
	servers := zktest.Servers(t)
	cur := zktest.StartCurator(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	var holders, peak atomic.Int64
	hold := func() {
		now := holders.Add(1)
		raise(&peak, now)
		assert.LessOrEqual(t, now, int64(maxLeases), "more holders than leases")
		time.Sleep(2 * time.Millisecond) // work, so holders overlap
		holders.Add(-1)
	}
	var wg sync.WaitGroup
	for range goClients {
		s := newSemaphore(t, connect(t, servers), path, maxLeases)
		wg.Go(func() { // ends after its rounds, or at the first failure
			for range rounds {
				l, err := s.AcquireTimeout(ctx, 30*time.Second)
				if !assert.NoError(t, err) {
					return
				}
				hold()
				if !assert.NoError(t, l.Release(ctx)) {
					return
				}
			}
		})
	}
	for i := range curHandles {
		h := fmt.Sprintf("h%d", i)
		wg.Go(func() { // ends after its rounds, or at the first failure
			for range rounds {
				_, ok, err := cur.SemAcquire(ctx, h, path, maxLeases, 1, 30*time.Second)
				if !assert.NoError(t, err) || !assert.True(t, ok) {
					return
				}
				hold()
				if !assert.NoError(t, cur.SemRelease(ctx, h)) {
					return
				}
			}
		})
	}
	wg.Wait()
	t.Logf("peak %d holders of %d leases", peak.Load(), maxLeases)
	assert.Equal(t, 0, nodeCount(t, connect(t, servers), path))
}

// Go and Curator acquirers wait on a semaphore counted by one SharedCount:
// a change of the count by either side wakes the other side's waiter.
func TestCurator_SharedCountChangesWakeWaitersOnEitherSide(t *testing.T) {
	t.Parallel()
	servers := zktest.Servers(t)
	cur := zktest.StartCurator(t, servers)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	countPath := path + "-count"
	require.NoError(t, cur.CountSet(ctx, countPath, 1))
	s, err := semaphore.NewCounted(c, path, newCount(t, c, countPath, 0))
	require.NoError(t, err)

	// Curator holds the only lease; a Go waiter is woken by Curator's raise.
	_, ok, err := cur.SemAcquireCounted(ctx, "holder", path, countPath, 1, 10*time.Second)
	require.NoError(t, err)
	require.True(t, ok)
	got := make(chan result[*leases.Lease], 1)
	go func() { // ends when the acquire returns: after the raise, or when ctx ends
		l, err := s.Acquire(ctx)
		got <- result[*leases.Lease]{l, err}
	}()
	require.Eventually(t, func() bool { return len(children(t, c, path+"/leases")) == 2 }, 10*time.Second, 10*time.Millisecond)
	require.NoError(t, cur.CountSet(ctx, countPath, 2))
	var goLease *leases.Lease
	select {
	case r := <-got:
		require.NoError(t, r.err)
		goLease = r.v
	case <-time.After(10 * time.Second):
		t.Fatal("Curator's raise did not wake the Go waiter")
	}

	// Both leases held; a Curator waiter is woken by Go's raise.
	curGot := make(chan result[bool], 1)
	go func() { // ends when Curator's acquire answers
		_, ok, err := cur.SemAcquireCounted(ctx, "waiter", path, countPath, 1, 20*time.Second)
		curGot <- result[bool]{ok, err}
	}()
	require.Eventually(t, func() bool { return len(children(t, c, path+"/leases")) == 3 }, 10*time.Second, 10*time.Millisecond)
	require.NoError(t, newCount(t, c, countPath, 0).Set(ctx, 3))
	select {
	case r := <-curGot:
		require.NoError(t, r.err)
		assert.True(t, r.v, "Go's raise woke the Curator waiter")
	case <-time.After(20 * time.Second):
		t.Fatal("Go's raise did not wake the Curator waiter")
	}
	require.NoError(t, goLease.Release(ctx))
	for _, h := range []string{"holder", "waiter"} {
		require.NoError(t, cur.SemRelease(ctx, h))
	}
	assert.Equal(t, 0, nodeCount(t, c, path))
}
