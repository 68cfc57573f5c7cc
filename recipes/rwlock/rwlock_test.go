package rwlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
)

func TestNew_RejectsBadInput(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	before := requests()
	tests := []struct {
		name   string
		client *framework.Client
		path   string
		opts   []rwlock.Option
	}{
		{"nil client", nil, "/rw", nil},
		{"relative path", c, "rw", nil},
		{"trailing slash", c, "/rw/", nil},
		{"root", c, "/", nil},
		{"nil option", c, "/rw", []rwlock.Option{nil}},
		{"unknown error policy", c, "/rw", []rwlock.Option{rwlock.WithErrorPolicy(framework.ErrorPolicy(7))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rw, err := rwlock.New(tt.client, tt.path, tt.opts...)
			require.ErrorIs(t, err, rwlock.ErrInvalidArgument)
			assert.Nil(t, rw)
		})
	}
	rw := newRW(t, c, zktest.UniquePath(t))
	ctx := testContext(t)
	for _, l := range []*rwlock.Lock{rw.ReadLock(), rw.WriteLock()} {
		type request struct{}
		_, err := l.AcquireTimeout(rwlock.ContextWithOwner(ctx, &request{}), time.Second)
		require.ErrorIs(t, err, rwlock.ErrInvalidArgument, "owners must not point to zero-size values")
		_, err = l.Acquire(rwlock.ContextWithOwner(ctx, []int{1}))
		require.ErrorIs(t, err, rwlock.ErrInvalidArgument, "owners must be comparable")
		require.ErrorIs(t, l.Release(ctx), rwlock.ErrNotOwner, "release without a hold")
	}
	assert.Equal(t, before, requests(), "nothing reached the server")
}

func TestRWLock_ReadersShareAndAWriterExcludesThem(t *testing.T) {
	servers := zktest.Servers(t)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	rw := newRW(t, c, path, rwlock.WithData([]byte("host-1")))

	r1, err := rw.ReadLock().Acquire(ctx)
	require.NoError(t, err)
	assert.Regexp(t, `^`+path+`/_c_[0-9a-f-]{36}-__READ__\d{10}$`, r1.Node())
	data, _, err := c.Get(ctx, r1.Node())
	require.NoError(t, err)
	assert.Equal(t, []byte("host-1"), data)
	r2, err := newRW(t, connect(t, servers), path).ReadLock().TryAcquire(ctx)
	require.NoError(t, err, "a second reader shares the lock")

	other := newRW(t, connect(t, servers), path)
	_, err = other.WriteLock().TryAcquire(ctx)
	require.ErrorIs(t, err, rwlock.ErrNotAcquired)
	_, err = other.WriteLock().AcquireTimeout(ctx, heldTimeout)
	require.ErrorIs(t, err, rwlock.ErrNotAcquired)
	writer := start(other.WriteLock())
	queued(t, c, path, 3)
	writer.notHeld(t, 200*time.Millisecond, "a writer while readers hold")
	require.NoError(t, r1.Release(ctx))
	require.NoError(t, r2.Release(ctx))
	w := writer.held(t, "the writer")
	assert.Regexp(t, `-__WRIT__\d{10}$`, w.Node())

	_, err = rw.ReadLock().TryAcquire(ctx)
	require.ErrorIs(t, err, rwlock.ErrNotAcquired, "a reader while a writer holds")
	assert.Equal(t, "rwlock: read lock: acquire "+path+": zkrecipes: not acquired", err.Error(), "the error names the read lock")
	_, err = newRW(t, connect(t, servers), path).WriteLock().TryAcquire(ctx)
	require.ErrorIs(t, err, rwlock.ErrNotAcquired, "a second writer")
	assert.Equal(t, "rwlock: write lock: acquire "+path+": zkrecipes: not acquired", err.Error(), "the error names the write lock")
	writer.finish(t)
	assert.Empty(t, children(t, c, path))
}

// A reader that arrives after a queued writer waits for it, even while
// other readers hold the lock: writers are not starved.
func TestRWLock_ReaderWaitsForAWriterQueuedBeforeIt(t *testing.T) {
	servers := zktest.Servers(t)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	r1, err := newRW(t, c, path).ReadLock().Acquire(ctx)
	require.NoError(t, err)
	writer := start(newRW(t, connect(t, servers), path).WriteLock())
	queued(t, c, path, 2)
	reader := start(newRW(t, connect(t, servers), path).ReadLock())
	queued(t, c, path, 3)
	reader.notHeld(t, 300*time.Millisecond, "a reader behind a queued writer")
	require.NoError(t, r1.Release(ctx))
	writer.held(t, "the writer")
	reader.notHeld(t, 200*time.Millisecond, "a reader while the writer holds")
	writer.finish(t)
	reader.held(t, "the reader")
	reader.finish(t)
	assert.Empty(t, children(t, c, path))
}

func TestRWLock_TwentyReadersHoldWhileEightWritersQueue(t *testing.T) {
	servers := zktest.Servers(t)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	clients := []*framework.Client{c, connect(t, servers), connect(t, servers), connect(t, servers)}
	var readers, writers []*pending
	for i := range 20 {
		readers = append(readers, start(newRW(t, clients[i%len(clients)], path).ReadLock()))
	}
	for _, r := range readers {
		r.held(t, "reader")
	}
	for i := range 8 {
		writers = append(writers, start(newRW(t, clients[i%len(clients)], path).WriteLock()))
	}
	queued(t, c, path, 28)
	rw := newRW(t, c, path)
	reading, err := rw.ReadLock().Participants(ctx)
	require.NoError(t, err)
	writing, err := rw.WriteLock().Participants(ctx)
	require.NoError(t, err)
	assert.Len(t, reading, 20)
	assert.Len(t, writing, 8)
	for _, p := range append(reading, writing...) {
		assert.Equal(t, path, p.Node[:len(path)], "participants are full paths")
	}
	for _, w := range writers {
		w.notHeld(t, 10*time.Millisecond, "a writer while readers hold")
	}
	for _, r := range readers {
		r.finish(t)
	}
	// The writers hold one at a time, in queue order.
	for range writers {
		order, err := rw.WriteLock().Participants(ctx)
		require.NoError(t, err)
		var next *pending
		require.Eventually(t, func() bool {
			for _, w := range writers {
				if len(w.holds) > 0 {
					next = w
					return true
				}
			}
			return false
		}, 20*time.Second, 5*time.Millisecond, "a writer holds")
		h := <-next.holds
		assert.Equal(t, order[0].Node, h.Node(), "the head of the queue holds")
		for _, w := range writers {
			assert.Empty(t, w.holds, "a second writer holds")
		}
		next.finish(t)
	}
	assert.Empty(t, children(t, c, path))
}

func TestRWLock_UpgradeIsRefusedAtOnce(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	rw := newRW(t, c, path)
	r, err := rw.ReadLock().Acquire(ctx)
	require.NoError(t, err)

	before := requests()
	for _, acquire := range []func(context.Context) (*rwlock.Hold, error){
		rw.WriteLock().Acquire, rw.WriteLock().TryAcquire,
		func(ctx context.Context) (*rwlock.Hold, error) {
			return rw.WriteLock().AcquireTimeout(ctx, time.Minute)
		},
	} {
		_, err := acquire(ctx)
		require.ErrorIs(t, err, rwlock.ErrUpgrade)
	}
	assert.Equal(t, before, requests(), "nothing reached the server")

	// Another owner may still ask for the write lock, and waits.
	other := rwlock.ContextWithOwner(ctx, "other")
	_, err = rw.WriteLock().AcquireTimeout(other, heldTimeout)
	require.ErrorIs(t, err, rwlock.ErrNotAcquired)
	require.NoError(t, r.Release(ctx))
	w, err := rw.WriteLock().Acquire(ctx)
	require.NoError(t, err, "after the read lock is released")
	require.NoError(t, w.Release(ctx))
	assert.Empty(t, children(t, c, path))
}

// Curator's testContendingDowngrading, which Curator 5.4 fails: the write
// holder takes the read lock and releases the write lock; a writer queued
// behind it stays out until the read lock is released too.
func TestRWLock_DowngradeKeepsTheWritersPlace(t *testing.T) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	rw := newRW(t, c, path)
	w, err := rw.WriteLock().Acquire(ctx)
	require.NoError(t, err)
	contender := start(newRW(t, connect(t, servers), path).WriteLock())
	queued(t, c, path, 2)

	sent := func() []int64 {
		return []int64{proxy.Requests(opMulti), proxy.Requests(zktest.OpCreate), proxy.Requests(zktest.OpGetChildren2), proxy.Requests(zktest.OpGetData)}
	}
	before := sent()
	r, err := rw.ReadLock().Acquire(ctx)
	require.NoError(t, err)
	assert.Equal(t, []int64{before[0] + 1, before[1], before[2], before[3]}, sent(),
		"a downgrade is one transaction (the check and the create), held at once")
	assert.Regexp(t, `-__READ__`+w.Node()[len(w.Node())-10:]+`$`, r.Node(), "the read node keeps the writer's sequence")
	_, stat, err := c.Get(ctx, r.Node())
	require.NoError(t, err)
	assert.Equal(t, c.Session().ID(), stat.EphemeralOwner, "ephemeral")
	require.NoError(t, w.Release(ctx))
	contender.notHeld(t, 500*time.Millisecond, "a writer while the downgraded read lock is held")

	// A reader of another owner that arrives now queues behind the
	// contending writer, as any reader would.
	_, err = rw.ReadLock().TryAcquire(rwlock.ContextWithOwner(ctx, "late reader"))
	require.ErrorIs(t, err, rwlock.ErrNotAcquired)
	_, err = rw.WriteLock().Acquire(ctx)
	require.ErrorIs(t, err, rwlock.ErrUpgrade, "once downgraded, no way back")

	require.NoError(t, r.Release(ctx))
	contender.held(t, "the contending writer")
	contender.finish(t)
	assert.Empty(t, children(t, c, path))
}

// Re-entry counts per owner without the server: a reader re-enters its
// read lock even while a writer is queued (Kazoo deadlocks here), and the
// write holder re-enters both locks.
func TestRWLock_ReentryCountsWithoutTheServer(t *testing.T) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	rw := newRW(t, c, path)
	r, err := rw.ReadLock().Acquire(ctx)
	require.NoError(t, err)
	writer := start(newRW(t, connect(t, servers), path).WriteLock())
	queued(t, c, path, 2)
	sent := func() int64 {
		return proxy.Requests(zktest.OpCreate) + proxy.Requests(zktest.OpDelete) +
			proxy.Requests(zktest.OpGetChildren2) + proxy.Requests(zktest.OpGetData)
	}
	before := sent()
	again, err := rw.ReadLock().AcquireTimeout(ctx, time.Second)
	require.NoError(t, err, "re-entry behind a queued writer")
	assert.Same(t, r, again)
	require.NoError(t, rw.ReadLock().Release(ctx))
	assert.Equal(t, before, sent(), "re-entry and inner release send nothing")
	writer.notHeld(t, 100*time.Millisecond, "the writer after an inner release")
	require.NoError(t, rw.ReadLock().Release(ctx))
	writer.held(t, "the writer")
	writer.finish(t)

	w, err := rw.WriteLock().Acquire(ctx)
	require.NoError(t, err)
	for _, l := range []*rwlock.Lock{rw.WriteLock(), rw.ReadLock(), rw.ReadLock(), rw.WriteLock()} {
		_, err := l.Acquire(ctx)
		require.NoError(t, err)
	}
	assert.Len(t, children(t, c, path), 2, "one write node and one read node")
	for range 2 {
		require.NoError(t, rw.WriteLock().Release(ctx))
		require.NoError(t, rw.ReadLock().Release(ctx))
	}
	assert.Same(t, w, rw.WriteLock().Held(ctx), "the write lock is still held once")
	assert.Nil(t, rw.ReadLock().Held(ctx))
	require.NoError(t, rw.WriteLock().Release(ctx))
	assert.Empty(t, children(t, c, path))
}

// Holds are mutex holds: a fencing token that grows from holder to
// holder, whatever the kind, and a loss signal.
func TestRWLock_HoldsCarryFencingTokensAndLoss(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	rw := newRW(t, c, zktest.UniquePath(t))
	var last int64
	for _, l := range []*rwlock.Lock{rw.ReadLock(), rw.WriteLock(), rw.ReadLock()} {
		h, err := l.Acquire(ctx)
		require.NoError(t, err)
		token, err := h.FencingToken(ctx)
		require.NoError(t, err)
		assert.Greater(t, token, last)
		last = token
		require.NoError(t, h.Release(ctx))
	}
	h, err := rw.WriteLock().Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, connect(t, zktest.Servers(t)).Delete(ctx, h.Node(), -1))
	waitClosed(t, h.Lost(), 10*time.Second, "the loss channel after the node was deleted")
	require.ErrorIs(t, h.Release(ctx), rwlock.ErrLost)
}

// A free lock, of either kind, is taken and released with three requests:
// create, the listing that rides along with it, and delete.
func TestRWLock_UncontendedAcquireReleaseCostsThreeRequests(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	ctx := context.Background()
	path := zktest.UniquePath(t)
	// A node of another name keeps the container directory from being
	// reaped between the acquires (the test server checks every second).
	_, err := c.Create(ctx, path+"/keep", nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	rw := newRW(t, c, path)
	for _, l := range []*rwlock.Lock{rw.ReadLock(), rw.WriteLock(), rw.ReadLock()} {
		before := requests()
		h, err := l.Acquire(ctx)
		require.NoError(t, err)
		require.NoError(t, h.Release(ctx))
		assert.Equal(t, before+3, requests(), "create, getChildren, delete")
	}
}

// One explicit owner acquiring one lock in a goroutine and the other in
// another, while a writer of another process makes the first wait: the
// second waits for the first and then does what one goroutine would. A
// write after a read is refused as an upgrade instead of queueing behind
// the owner's own reader; a read after a write downgrades instead of
// queueing behind the owner's own writer. Either way the owner never waits
// for itself.
func TestRWLock_OwnersConcurrentAcquiresNeverQueueBehindThemselves(t *testing.T) {
	servers := zktest.Servers(t)
	read := func(rw *rwlock.ReadWriteLock) *rwlock.Lock { return rw.ReadLock() }
	write := func(rw *rwlock.ReadWriteLock) *rwlock.Lock { return rw.WriteLock() }
	for _, tc := range []struct {
		name          string
		first, second func(*rwlock.ReadWriteLock) *rwlock.Lock
		check         func(t *testing.T, first *rwlock.Hold, second result)
		nodes         int // the owner's nodes while it holds
	}{
		{"read then write", read, write, func(t *testing.T, _ *rwlock.Hold, second result) {
			require.ErrorIs(t, second.err, rwlock.ErrUpgrade)
		}, 1},
		{"write then read", write, read, func(t *testing.T, first *rwlock.Hold, second result) {
			require.NoError(t, second.err, "the owner's reader downgrades")
			assert.Equal(t, first.Node()[len(first.Node())-10:], second.h.Node()[len(second.h.Node())-10:], "at the writer's sequence")
		}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := connect(t, servers)
			ctx := testContext(t)
			path := zktest.UniquePath(t)
			blocker := start(newRW(t, connect(t, servers), path).WriteLock())
			blocker.held(t, "the writer that makes the owner wait")

			rw := newRW(t, c, path)
			job := rwlock.ContextWithOwner(ctx, "job-7")
			firstDone := make(chan result, 1)
			go func() { // ends when the acquire does, at the latest with ctx
				h, err := tc.first(rw).Acquire(job)
				firstDone <- result{h, err}
			}()
			queued(t, c, path, 2)
			secondDone := make(chan result, 1)
			go func() { // ends within its 10 s timeout
				h, err := tc.second(rw).AcquireTimeout(job, 10*time.Second)
				secondDone <- result{h, err}
			}()
			time.Sleep(300 * time.Millisecond) // the second acquire is under way
			blocker.finish(t)

			first := <-firstDone
			require.NoError(t, first.err)
			second := <-secondDone
			tc.check(t, first.h, second)
			assert.Len(t, children(t, c, path), tc.nodes, "the owner queued nothing behind itself")
			if second.h != nil {
				require.NoError(t, second.h.Release(job))
			}
			require.NoError(t, first.h.Release(job))
			assert.Empty(t, children(t, c, path))
		})
	}
}

// A TryAcquire of an owner whose other acquire is under way does not wait
// for it.
func TestRWLock_TryAcquireBesideTheOwnersAcquireUnderWay(t *testing.T) {
	servers := zktest.Servers(t)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	blocker := start(newRW(t, connect(t, servers), path).WriteLock())
	blocker.held(t, "the writer that makes the owner wait")
	rw := newRW(t, c, path)
	job := rwlock.ContextWithOwner(ctx, "job-9")
	read := make(chan result, 1)
	go func() { // ends when the read acquire does, at the latest with ctx
		h, err := rw.ReadLock().Acquire(job)
		read <- result{h, err}
	}()
	queued(t, c, path, 2)
	_, err := rw.WriteLock().TryAcquire(job)
	require.ErrorIs(t, err, rwlock.ErrNotAcquired)
	blocker.finish(t)
	r := <-read
	require.NoError(t, r.err)
	require.NoError(t, r.h.Release(job))
}

// opMulti is ZooKeeper's opcode of a transaction.
const opMulti int32 = 14

// result is an acquire's outcome.
type result struct {
	h   *rwlock.Hold
	err error
}
