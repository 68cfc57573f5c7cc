package mutex_test

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

func TestNew_RejectsBadInput(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	before := requests()
	tests := []struct {
		name   string
		client *framework.Client
		path   string
		opts   []mutex.Option
	}{
		{"nil client", nil, "/lock", nil},
		{"relative path", c, "lock", nil},
		{"trailing slash", c, "/lock/", nil},
		{"root", c, "/", nil},
		{"nil option", c, "/lock", []mutex.Option{nil}},
		{"nil revocation handler", c, "/lock", []mutex.Option{mutex.WithRevocation(nil)}},
		{"empty name", c, "/lock", []mutex.Option{mutex.WithName("")}},
		{"unknown error policy", c, "/lock", []mutex.Option{mutex.WithErrorPolicy(framework.ErrorPolicy(7))}},
		{"empty watched queue", c, "/lock", []mutex.Option{mutex.WithWatchedQueue(0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := mutex.New(tt.client, tt.path, tt.opts...)
			require.ErrorIs(t, err, mutex.ErrInvalidArgument)
			assert.Nil(t, m)
		})
	}
	m := newMutex(t, c, zktest.UniquePath(t))
	_, err := m.Acquire(mutex.ContextWithOwner(testContext(t), []int{1}))
	require.ErrorIs(t, err, mutex.ErrInvalidArgument, "owners must be comparable")
	require.ErrorIs(t, m.Release(testContext(t)), mutex.ErrNotOwner, "release without a hold")
	assert.Equal(t, before, requests(), "nothing reached the server")
}

func TestMutex_AcquireReleaseLeavesNothing(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	m := newMutex(t, c, path, mutex.WithData([]byte("host-1")))

	h, err := m.Acquire(ctx)
	require.NoError(t, err)
	assert.True(t, m.IsAcquiredInThisProcess())
	assert.Regexp(t, `^`+path+`/_c_[0-9a-f-]{36}-lock-\d{10}$`, h.Node())
	data, _, err := c.Get(ctx, h.Node())
	require.NoError(t, err)
	assert.Equal(t, []byte("host-1"), data)
	assert.NoError(t, h.Err())

	require.NoError(t, m.Release(ctx))
	assert.False(t, m.IsAcquiredInThisProcess())
	assert.Empty(t, children(t, c, path))
	require.ErrorIs(t, m.Release(ctx), mutex.ErrNotOwner, "double release")
	require.ErrorIs(t, h.Release(ctx), mutex.ErrReleased, "release through a finished hold")
	assert.Error(t, h.Err(), "a released hold says so")
}

func TestMutex_ReentrantAcquireCountsWithoutTheServer(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	m := newMutex(t, c, path)
	first, err := m.Acquire(ctx)
	require.NoError(t, err)

	before := requests()
	second, err := m.Acquire(ctx)
	require.NoError(t, err)
	assert.Same(t, first, second)
	require.NoError(t, m.Release(ctx))
	assert.Equal(t, before, requests(), "re-entry and inner release send nothing")
	assert.Len(t, children(t, c, path), 1, "still held after the inner release")

	require.NoError(t, m.Release(ctx))
	assert.Empty(t, children(t, c, path))
}

func TestMutex_SecondOwnerWaitsUntilRelease(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	m := newMutex(t, c, zktest.UniquePath(t))
	h, err := m.Acquire(ctx)
	require.NoError(t, err)

	acquired := make(chan error, 1)
	go func() { // another goroutine is another owner
		h2, err := m.Acquire(ctx)
		if err == nil {
			err = h2.Release(ctx)
		}
		acquired <- err
	}()
	select {
	case err := <-acquired:
		t.Fatalf("a second goroutine acquired a held mutex: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	require.ErrorIs(t, m.Release(mutex.ContextWithOwner(ctx, "someone else")), mutex.ErrNotOwner)
	otherGoroutine := make(chan error)
	go func() { otherGoroutine <- m.Release(ctx) }()
	require.ErrorIs(t, <-otherGoroutine, mutex.ErrNotOwner, "another goroutine cannot release")
	require.NoError(t, h.Release(ctx))
	require.NoError(t, <-acquired)
}

func TestMutex_ExplicitOwnerHandsAHoldAcrossGoroutines(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	path := zktest.UniquePath(t)
	m := newMutex(t, c, path)
	ctx := mutex.ContextWithOwner(testContext(t), "job-7")
	_, err := m.Acquire(ctx)
	require.NoError(t, err)
	released := make(chan error)
	go func() { released <- m.Release(ctx) }()
	require.NoError(t, <-released)
	assert.Empty(t, children(t, c, path))
}

func TestMutex_TryAndTimedAcquireLeaveNothingWhenNotAcquired(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	holder := newMutex(t, c, path)
	h, err := holder.Acquire(ctx)
	require.NoError(t, err)

	m := newMutex(t, other, path)
	_, err = m.TryAcquire(ctx)
	require.ErrorIs(t, err, mutex.ErrNotAcquired)
	_, err = m.AcquireTimeout(ctx, heldTimeout)
	require.ErrorIs(t, err, mutex.ErrNotAcquired)
	assert.NotErrorIs(t, err, context.DeadlineExceeded, "running out of time is not a failure")
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err = m.Acquire(cctx)
	require.ErrorIs(t, err, context.Canceled)
	require.Eventually(t, func() bool { // a create cut short is cleaned up just after
		names := children(t, c, path)
		return len(names) == 1 && names[0] == baseName(h.Node())
	}, 10*time.Second, 10*time.Millisecond, "only the holder's node")
	assert.False(t, m.IsAcquiredInThisProcess())

	require.NoError(t, h.Release(ctx))
	h2, err := m.TryAcquire(ctx)
	require.NoError(t, err)
	require.NoError(t, h2.Release(ctx))
}

func TestMutex_ParticipantsInQueueOrder(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	m := newMutex(t, c, path, mutex.WithData([]byte("host-a")))
	h, err := m.Acquire(ctx)
	require.NoError(t, err)
	var wg sync.WaitGroup
	waiter := newMutex(t, connect(t, zktest.Servers(t)), path)
	wg.Go(func() {
		if h2, err := waiter.Acquire(ctx); assert.NoError(t, err) {
			assert.NoError(t, h2.Release(ctx))
		}
	})
	require.Eventually(t, func() bool { return len(children(t, c, path)) == 2 }, 10*time.Second, 10*time.Millisecond)
	got, err := m.Participants(ctx)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, mutex.Participant{Node: h.Node(), ID: "host-a"}, got[0], "the holder first, its data as its id")
	assert.Empty(t, got[1].ID, "a node without data has no id")
	assert.Equal(t, path, zkpath.Parent(got[1].Node))
	require.NoError(t, h.Release(ctx))
	wg.Wait()
}

func TestHold_FencingTokenGrowsFromHolderToHolder(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	m := newMutex(t, c, zktest.UniquePath(t))
	var last int64
	for range 3 {
		h, err := m.Acquire(ctx)
		require.NoError(t, err)
		token, err := h.FencingToken(ctx)
		require.NoError(t, err)
		again, err := h.FencingToken(ctx)
		require.NoError(t, err)
		assert.Equal(t, token, again)
		assert.Greater(t, token, last)
		last = token
		require.NoError(t, h.Release(ctx))
	}
}

func TestMutex_RevocationCallsTheHolder(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	revoked := make(chan *mutex.Hold, 1)
	m := newMutex(t, c, path, mutex.WithRevocation(func(h *mutex.Hold) { revoked <- h }), mutex.WithData([]byte("ignored")))
	h, err := m.Acquire(ctx)
	require.NoError(t, err)
	data, _, err := c.Get(ctx, h.Node())
	require.NoError(t, err)
	assert.Empty(t, data, "revocable nodes start empty, as Curator's")

	require.NoError(t, mutex.Revoke(ctx, connect(t, zktest.Servers(t)), h.Node()))
	select {
	case got := <-revoked:
		assert.Same(t, h, got)
		require.NoError(t, got.Release(ctx))
	case <-time.After(10 * time.Second):
		t.Fatal("the revocation handler was not called")
	}
	assert.Empty(t, children(t, c, path))
	require.NoError(t, mutex.Revoke(ctx, c, path+"/gone"), "revoking a missing node is not an error")
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}

func TestMutex_UncontendedAcquireReleaseCostsThreeRequests(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	ctx := context.Background()
	path := zktest.UniquePath(t)
	// A node of another name keeps the container directory from being
	// reaped between the acquires (the test server checks every second).
	_, err := c.Create(ctx, path+"/keep", nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	m := newMutex(t, c, path)

	before := requests()
	h, err := m.Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, h.Release(ctx))
	assert.Equal(t, before+3, requests(), "create, getChildren, delete")
}

// A free lock is taken in one round trip: the listing of the queue leaves
// before the create's answer is back (the proxy holds every reply until
// both requests have gone out).
func TestMutex_UncontendedAcquireIsOneRoundTrip(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	m := newMutex(t, connect(t, proxy.Addr()), zktest.UniquePath(t))
	ctx := testContext(t)
	h, err := m.Acquire(ctx) // the first acquire also creates the directory
	require.NoError(t, err)
	require.NoError(t, h.Release(ctx))
	creates, lists := proxy.Requests(zktest.OpCreate), proxy.Requests(zktest.OpGetChildren2)

	proxy.HoldReplies()
	acquired := make(chan error, 1)
	go func() {
		h, err = m.Acquire(ctx)
		acquired <- err
	}()
	require.Eventually(t, func() bool {
		return proxy.Requests(zktest.OpCreate) == creates+1 && proxy.Requests(zktest.OpGetChildren2) == lists+1
	}, 10*time.Second, time.Millisecond, "create and listing sent before any answer")
	proxy.ReleaseReplies()
	require.NoError(t, <-acquired)
	require.NoError(t, h.Release(ctx))
	assert.Equal(t, lists+1, proxy.Requests(zktest.OpGetChildren2), "one listing")
}

func TestMutex_ClosedClientFailsWithErrClosed(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	m := newMutex(t, c, zktest.UniquePath(t))
	require.NoError(t, c.Close())
	_, err := m.Acquire(testContext(t))
	require.ErrorIs(t, err, framework.ErrClosed)
	assert.False(t, m.IsAcquiredInThisProcess())
}

// A waiter whose client is closed under it fails with ErrClosed, not as
// if its node had been deleted or its session had expired.
func TestMutex_WaiterWhoseClientClosesFailsWithErrClosed(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	h, err := newMutex(t, connect(t, zktest.Servers(t)), path).Acquire(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Release(context.Background()) })
	m := newMutex(t, c, path)
	watches := func() int64 { return proxy.Answered(zktest.OpAddWatch) + proxy.Answered(3) }
	before := watches()
	waiting := make(chan error, 1)
	go func() { // ends when the acquire does
		_, err := m.Acquire(ctx)
		waiting <- err
	}()
	// It waits on a watch: of the directory (addWatch, 3.6+) or of the node
	// before it (exists, opcode 3).
	require.Eventually(t, func() bool { return watches() > before }, 10*time.Second, time.Millisecond)
	require.NoError(t, c.Close())
	select {
	case err := <-waiting:
		require.ErrorIs(t, err, mutex.ErrClosed)
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter did not return after the client's Close")
	}
}

func TestMutex_ClosingTheClientLosesTheHold(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	h, err := newMutex(t, c, zktest.UniquePath(t)).Acquire(testContext(t))
	require.NoError(t, err)
	require.NoError(t, c.Close())
	waitClosed(t, h.Lost(), 5*time.Second, "the loss channel after Close")
	require.ErrorIs(t, h.Err(), mutex.ErrLost)
}

// A deliberate Close ends the hold without a warning in the log.
func TestMutex_ClosingTheClientLogsNoWarning(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logs.Write(p)
	}), nil))
	c := connect(t, zktest.Servers(t), framework.WithLogger(logger))
	h, err := newMutex(t, c, zktest.UniquePath(t)).Acquire(testContext(t))
	require.NoError(t, err)
	require.NoError(t, c.Close())
	waitClosed(t, h.Lost(), 5*time.Second, "the loss channel after Close")
	mu.Lock()
	defer mu.Unlock()
	assert.NotContains(t, logs.String(), "level=WARN")
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
