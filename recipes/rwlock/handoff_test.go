package rwlock_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// armed waits until the client behind proxy has listed the queue once and
// read watches nodes: its own and those in its way.
func armed(t *testing.T, proxy *zktest.Proxy, watches int64, what string) {
	t.Helper()
	require.Eventually(t, func() bool {
		return proxy.Requests(zktest.OpGetChildren2) == 1 && proxy.Requests(zktest.OpGetData) == watches
	}, 20*time.Second, 5*time.Millisecond, "%s is armed", what)
}

// Readers queued behind one writer all watch its node and take the lock
// together on its deletion: from the writer's release on, none of them
// lists the queue or reads a node (DESIGN section 6).
func TestHandOff_ReadersReleasedTogetherSendNothing(t *testing.T) {
	servers := zktest.Servers(t)
	observer := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	w, err := newRW(t, connect(t, servers), path).WriteLock().Acquire(ctx)
	require.NoError(t, err)
	var proxies []*zktest.Proxy
	var readers []*pending
	for i := range 4 {
		p := zktest.NewProxy(t, servers)
		p.MakeOld() // the one-shot path's counts; the mutex tests both
		proxies = append(proxies, p)
		readers = append(readers, start(newRW(t, connect(t, p.Addr()), path).ReadLock()))
		queued(t, observer, path, i+2)
		armed(t, p, 2, "a reader")
	}

	require.NoError(t, w.Release(ctx))
	for _, r := range readers {
		r.held(t, "a reader") // all hold at once: none has been released yet
	}
	for i, p := range proxies {
		assert.Equal(t, int64(1), p.Requests(zktest.OpGetChildren2), "reader %d listed the queue once", i)
		assert.Equal(t, int64(2), p.Requests(zktest.OpGetData), "reader %d read no node after the release", i)
	}
	for _, r := range readers {
		r.finish(t)
	}
	assert.Empty(t, children(t, observer, path))
}

// A writer behind readers holds when the last of them goes, with no look;
// a writer behind a writer looks once (one listing), since the writer in
// front might have downgraded.
func TestHandOff_WriterCosts(t *testing.T) {
	servers := zktest.Servers(t)
	observer := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	holders := newRW(t, connect(t, servers), path)
	r1, err := holders.ReadLock().Acquire(ctx)
	require.NoError(t, err)
	r2, err := newRW(t, connect(t, servers), path).ReadLock().Acquire(ctx)
	require.NoError(t, err)
	p1, p2 := zktest.NewProxy(t, servers), zktest.NewProxy(t, servers)
	p1.MakeOld() // the one-shot path's counts; the mutex tests both
	p2.MakeOld()
	first := start(newRW(t, connect(t, p1.Addr()), path).WriteLock())
	queued(t, observer, path, 3)
	armed(t, p1, 3, "the writer behind two readers")
	second := start(newRW(t, connect(t, p2.Addr()), path).WriteLock())
	queued(t, observer, path, 4)
	armed(t, p2, 3, "the writer behind a reader and a writer")

	require.NoError(t, r1.Release(ctx))
	require.NoError(t, r2.Release(ctx))
	first.held(t, "the first writer")
	assert.Equal(t, int64(1), p1.Requests(zktest.OpGetChildren2), "the first writer took the lock with no look")
	assert.Equal(t, int64(3), p1.Requests(zktest.OpGetData))
	second.notHeld(t, 100*time.Millisecond, "the second writer")
	first.finish(t)
	second.held(t, "the second writer")
	assert.LessOrEqual(t, p2.Requests(zktest.OpGetChildren2), int64(3), "the second writer looked again when a node in front went")
	second.finish(t)
	assert.Empty(t, children(t, observer, path))
}

// A writer behind a writer cannot take the deletion of the write node as
// its turn: the writer in front may have downgraded, and its read node,
// at the writer's place, still holds. The writer behind looks again when
// the write node goes (a listing), finds the read node, and waits for it.
func TestHandOff_WriterBehindADowngradedWriterWaitsForItsReadNode(t *testing.T) {
	servers := zktest.Servers(t)
	observer := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	rw := newRW(t, connect(t, servers), path)
	w, err := rw.WriteLock().Acquire(ctx)
	require.NoError(t, err)
	proxy := zktest.NewProxy(t, servers)
	proxy.MakeOld() // the one-shot path's counts; the mutex tests both
	behind := start(newRW(t, connect(t, proxy.Addr()), path).WriteLock())
	queued(t, observer, path, 2)
	armed(t, proxy, 2, "the writer behind a writer") // its own node and the writer's

	r, err := rw.ReadLock().Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, w.Release(ctx))
	require.Eventually(t, func() bool {
		return len(behind.holds) > 0 || proxy.Requests(zktest.OpGetChildren2) == 2 && proxy.Requests(zktest.OpGetData) == 3
	}, 20*time.Second, 5*time.Millisecond, "the writer behind looked again and watches the read node")
	select {
	case <-behind.holds:
		t.Fatal("the writer behind holds beside the downgraded read node")
	case err := <-behind.failed:
		t.Fatalf("the writer behind failed: %v", err)
	default:
	}
	require.NoError(t, r.Release(ctx))
	behind.held(t, "the writer behind")
	behind.finish(t)
	assert.Empty(t, children(t, observer, path))
}
