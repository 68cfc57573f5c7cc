package reliability_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// onewaySession is the holder's session timeout in the one-way tests.
const onewaySession = 2 * time.Second

// holdKind takes a hold of one kind: the holder's side (holder true) or
// the side that excludes it. It returns the hold's loss channel.
type holdKind struct {
	name string
	take func(ctx context.Context, t *testing.T, c *framework.Client, path string, policy framework.ErrorPolicy, holder bool) <-chan struct{}
	// queued is where the excluded side's node shows while it waits.
	queued func(path string) string
}

func lockDir(path string) string { return path }

var holdKinds = []holdKind{
	{"mutex", func(ctx context.Context, t *testing.T, c *framework.Client, path string, p framework.ErrorPolicy, _ bool) <-chan struct{} {
		m, err := mutex.New(c, path, mutex.WithErrorPolicy(p))
		require.NoError(t, err)
		h, err := m.Acquire(ctx)
		require.NoError(t, err)
		return h.Lost()
	}, lockDir},
	{"read lock", func(ctx context.Context, t *testing.T, c *framework.Client, path string, p framework.ErrorPolicy, holder bool) <-chan struct{} {
		return takeRW(ctx, t, c, path, p, holder)
	}, lockDir},
	{"write lock", func(ctx context.Context, t *testing.T, c *framework.Client, path string, p framework.ErrorPolicy, _ bool) <-chan struct{} {
		return takeRW(ctx, t, c, path, p, false)
	}, lockDir},
	{"semaphore lease", func(ctx context.Context, t *testing.T, c *framework.Client, path string, p framework.ErrorPolicy, _ bool) <-chan struct{} {
		s, err := semaphore.New(c, path, 1, semaphore.WithErrorPolicy(p))
		require.NoError(t, err)
		l, err := s.Acquire(ctx)
		require.NoError(t, err)
		return l.Lost()
	}, func(path string) string { return path + "/leases" }},
	// A TTL lease is bound to no session: its own deadline, counted from
	// before each renewal was sent, ends it; the server frees the permit
	// a TTL after the last renewal it received.
	{"TTL lease", func(ctx context.Context, t *testing.T, c *framework.Client, path string, p framework.ErrorPolicy, holder bool) <-chan struct{} {
		s, err := semaphore.New(c, path, 1, semaphore.WithErrorPolicy(p), semaphore.WithTTL(onewaySession))
		require.NoError(t, err)
		l, err := s.Acquire(ctx)
		require.NoError(t, err)
		if holder {
			_, err := leases.Keep(ctx, l, l.Release)
			require.NoError(t, err)
		}
		return l.Lost()
	}, func(path string) string { return path + "/leases" }},
	// A latch's term, taken when Await returns it; the excluded side is
	// the successor, whose term starts when its Await returns.
	{"leader latch", func(ctx context.Context, t *testing.T, c *framework.Client, path string, p framework.ErrorPolicy, _ bool) <-chan struct{} {
		l, err := leader.NewLatch(c, path, leader.WithErrorPolicy(p))
		require.NoError(t, err)
		require.NoError(t, l.Start(ctx))
		term, err := l.Await(ctx)
		require.NoError(t, err)
		return term.Lost()
	}, lockDir},
	{"leader selector", takeSelector, lockDir},
}

// takeSelector runs a selector at path until its function is entered, and
// returns a channel closed when the function's ctx ends (its term is
// lost); the function then returns.
func takeSelector(ctx context.Context, t *testing.T, c *framework.Client, path string, p framework.ErrorPolicy, _ bool) <-chan struct{} {
	entered, lost := make(chan struct{}), make(chan struct{})
	s, err := leader.NewSelector(c, path, func(fctx context.Context) error {
		close(entered)
		<-fctx.Done()
		close(lost)
		return nil
	}, leader.WithErrorPolicy(p))
	require.NoError(t, err)
	// Ends when the function returns: its term lost, or the test's ctx.
	go func() { _ = s.Run(ctx) }()
	select {
	case <-entered:
	case <-ctx.Done():
		t.Fatal("the selector never led")
	}
	return lost
}

// takeRW takes the read lock (read true) or the write lock of path.
func takeRW(ctx context.Context, t *testing.T, c *framework.Client, path string, p framework.ErrorPolicy, read bool) <-chan struct{} {
	rw, err := rwlock.New(c, path, rwlock.WithErrorPolicy(p))
	require.NoError(t, err)
	l := rw.WriteLock()
	if read {
		l = rw.ReadLock()
	}
	h, err := l.Acquire(ctx)
	require.NoError(t, err)
	return h.Lost()
}

// In a one-way partition the holder's requests and pings no longer reach
// the server while the server's notifications still reach the holder, so
// the connection never looks broken; the server expires the session and
// the next holder acquires. The session lease tells the holder first,
// under both error policies.
func TestOneWayPartition_HolderIsToldBeforeTheNextHolderAcquires(t *testing.T) {
	t.Parallel() // each has servers of its own; most of its time is spent waiting
	for _, kind := range holdKinds {
		for _, policy := range []framework.ErrorPolicy{framework.StandardErrorPolicy, framework.SessionErrorPolicy} {
			t.Run(kind.name+"/"+policy.String(), func(t *testing.T) {
				oneWayPartition(t, kind, policy)
			})
		}
	}
}

func oneWayPartition(t *testing.T, kind holdKind, policy framework.ErrorPolicy) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	holderClient := zktest.Connect(t, proxy.Addr(), framework.WithSessionTimeout(onewaySession))
	other := zktest.Connect(t, servers)
	holdThroughOneWayPartition(t, kind, policy, proxy, holderClient, other)
}

// holdThroughOneWayPartition takes a hold of kind through holderClient,
// which reaches the server through proxy, queues other behind it, cuts
// the holder's requests off, and checks that the holder is told of its
// loss before other acquires.
func holdThroughOneWayPartition(t *testing.T, kind holdKind, policy framework.ErrorPolicy, proxy *zktest.Proxy, holderClient, other *framework.Client) {
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	beacon := path + "-beacons"
	lost := kind.take(ctx, t, holderClient, path, policy, true)
	notified := watchBeacons(ctx, t, holderClient, other, beacon)

	// When the excluded side acquired, and whether the holder had been
	// told by then: read where it acquires, so that a test goroutine that
	// the scheduler runs late cannot take one order for the other (a
	// select finding both ready picks either).
	acquired := make(chan acquisition, 1)
	// Ends when the excluded side acquires, or with the test's context.
	go func() {
		kind.take(ctx, t, other, path, policy, false)
		acquired <- acquisition{at: time.Now(), told: isClosed(lost)}
	}()
	require.Eventually(t, func() bool { return len(zktest.Children(t, other, kind.queued(path))) == 2 },
		30*time.Second, 10*time.Millisecond, "the next holder queues")

	proxy.PauseRequests()
	stopBeacons := setBeacons(ctx, other, beacon)
	defer stopBeacons()
	var a acquisition
	select {
	case <-lost:
		told := time.Now()
		select {
		case a = <-acquired:
		case <-time.After(30 * time.Second):
			t.Fatal("the next holder never acquired")
		}
		if told.Before(a.at) {
			t.Logf("%s, %s policy: the holder was told %v before the next holder acquired", kind.name, policy, a.at.Sub(told))
		}
	case a = <-acquired:
	case <-time.After(30 * time.Second):
		t.Fatal("the holder was never told")
	}
	require.True(t, a.told, "the next holder acquired at %v while the holder was not told", a.at.Format(time.StampMicro))
	assert.Positive(t, notified.Load(), "notifications reached the holder during the partition")
}

// acquisition is when the excluded side acquired, and whether the holder
// had been told of its loss by then.
type acquisition struct {
	at   time.Time
	told bool
}

// isClosed tells whether ch is closed.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// beacons is how many nodes the holder watches: the other client sets
// one every beaconEvery, so notifications reach the holder for
// beacons × beaconEvery after the partition begins, longer than the
// session lasts, though the holder can set no new watch.
const (
	beacons     = 200
	beaconEvery = 20 * time.Millisecond
)

// watchBeacons creates the beacons under dir and watches each through c;
// it counts the notifications until ctx ends.
func watchBeacons(ctx context.Context, t *testing.T, c, other *framework.Client, dir string) *atomic.Int64 {
	var n atomic.Int64
	for i := range beacons {
		path := fmt.Sprintf("%s/%d", dir, i)
		_, err := other.Create(ctx, path, nil, framework.Persistent, framework.WithParents())
		require.NoError(t, err)
		_, _, watch, err := c.GetW(ctx, path)
		require.NoError(t, err)
		// Ends with the notification or the test's context.
		go func() {
			select {
			case <-watch:
				n.Add(1)
			case <-ctx.Done():
			}
		}()
	}
	return &n
}

// setBeacons writes one beacon under dir every beaconEvery, each once,
// until stopped.
func setBeacons(ctx context.Context, c *framework.Client, dir string) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	// Ends with stop, the test's context or the last beacon.
	go func() {
		defer close(done)
		tick := time.NewTicker(beaconEvery)
		defer tick.Stop()
		for i := range beacons {
			select {
			case <-tick.C:
				_, _ = c.Set(ctx, fmt.Sprintf("%s/%d", dir, i), nil, -1)
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() { cancel(); <-done }
}
