package reliability_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/atomicvalue"
	"github.com/zkrecipes/zkrecipes/recipes/barrier"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
	"github.com/zkrecipes/zkrecipes/recipes/discovery"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/multilock"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/node"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// Every package's ErrClosed is the root's, not a value of its own, so that
// errors.Is matches whichever name the caller knows.
func TestClosed_EveryPackagesErrClosedIsTheRootOne(t *testing.T) {
	for name, sentinel := range map[string]error{
		"framework":   framework.ErrClosed,
		"zktesting":   zktesting.ErrClosed,
		"mutex":       mutex.ErrClosed,
		"rwlock":      rwlock.ErrClosed,
		"multilock":   multilock.ErrClosed,
		"semaphore":   semaphore.ErrClosed,
		"leases":      leases.ErrClosed,
		"sharedcount": sharedcount.ErrClosed,
		"leader":      leader.ErrClosed,
		"cache":       cache.ErrClosed,
		"node":        node.ErrClosed,
		"discovery":   discovery.ErrClosed,
		"queue":       queue.ErrClosed,
		"barrier":     barrier.ErrClosed,
		"atomicvalue": atomicvalue.ErrClosed,
	} {
		assert.True(t, sentinel == zkrecipes.ErrClosed, "%s.ErrClosed (%q) is zkrecipes.ErrClosed", name, sentinel)
	}
}

// closedCase is one call on a recipe of a closed client, and the recipe
// package's ErrClosed, which its error must match as well as the root's.
type closedCase struct {
	name string
	call func() error
	own  error
}

// closedCases prepares, on c while it is open, what the calls after its
// Close need, and returns them.
func closedCases(t *testing.T, c *framework.Client, root string) []closedCase {
	ctx := zktest.Context(t)
	errOf := func(_ any, err error) error { return err }
	m, err := mutex.New(c, root+"/mutex")
	require.NoError(t, err)
	h, err := m.Acquire(mutex.ContextWithOwner(ctx, "before"))
	require.NoError(t, err)
	rw, err := rwlock.New(c, root+"/rwlock")
	require.NoError(t, err)
	sm, err := semaphore.NewMutex(c, root+"/semaphore-mutex")
	require.NoError(t, err)
	multi, err := multilock.New(multilock.Mutex(m), multilock.SemaphoreMutex(sm))
	require.NoError(t, err)
	s, err := semaphore.New(c, root+"/semaphore", 2, semaphore.WithTTL(time.Minute))
	require.NoError(t, err)
	lease, err := s.Acquire(ctx)
	require.NoError(t, err)
	count, err := sharedcount.New(c, root+"/count", 1)
	require.NoError(t, err)
	latch, err := leader.NewLatch(c, root+"/latch")
	require.NoError(t, err)
	running, err := leader.NewLatch(c, root+"/running-latch")
	require.NoError(t, err)
	require.NoError(t, running.Start(context.Background()))
	term, err := running.Await(ctx)
	require.NoError(t, err)
	selector, err := leader.NewSelector(c, root+"/selector", func(context.Context) error { return nil })
	require.NoError(t, err)
	observer, err := leader.NewObserver(c, root+"/running-latch")
	require.NoError(t, err)
	cc, err := cache.New(c, root+"/cache")
	require.NoError(t, err)
	runningCache, err := cache.New(c, root)
	require.NoError(t, err)
	require.NoError(t, runningCache.Start(context.Background()))
	require.NoError(t, runningCache.AwaitInitialized(ctx))
	d, err := discovery.New[map[string]any](c, root+"/services")
	require.NoError(t, err)
	provider, err := d.Provider("api")
	require.NoError(t, err)
	reg, err := d.Register(ctx, discovery.Instance[map[string]any]{Name: "api", ID: "one"})
	require.NoError(t, err)
	require.NoError(t, provider.Start(context.Background()))
	require.NoError(t, provider.AwaitInitialized(ctx))
	_, err = provider.Instance()
	require.NoError(t, err, "the provider has an instance before the close")
	t.Cleanup(func() { _ = reg.Close(context.Background()) })
	kept, err := node.New(c, root+"/kept", framework.Ephemeral, nil)
	require.NoError(t, err)
	require.NoError(t, kept.Start(context.Background()))
	require.NoError(t, kept.AwaitCreated(ctx))
	fresh, err := node.New(c, root+"/fresh", framework.Persistent, nil)
	require.NoError(t, err)

	return append([]closedCase{
		{"mutex.Mutex.Acquire", func() error { return errOf(m.Acquire(ctx)) }, mutex.ErrClosed},
		{"mutex.Mutex.TryAcquire", func() error { return errOf(m.TryAcquire(ctx)) }, mutex.ErrClosed},
		{"mutex.Mutex.AcquireTimeout", func() error { return errOf(m.AcquireTimeout(ctx, time.Second)) }, mutex.ErrClosed},
		{"mutex.Revoke", func() error { return mutex.Revoke(ctx, c, h.Node()) }, mutex.ErrClosed},
		{"rwlock read Lock.Acquire", func() error { return errOf(rw.ReadLock().Acquire(ctx)) }, rwlock.ErrClosed},
		{"rwlock write Lock.TryAcquire", func() error { return errOf(rw.WriteLock().TryAcquire(ctx)) }, rwlock.ErrClosed},
		{"multilock.Lock.Acquire", func() error { return errOf(multi.Acquire(ctx)) }, multilock.ErrClosed},
		{"semaphore.Semaphore.Acquire", func() error { return errOf(s.Acquire(ctx)) }, semaphore.ErrClosed},
		{"semaphore.Semaphore.AcquireN", func() error { return errOf(s.AcquireN(ctx, 2)) }, semaphore.ErrClosed},
		{"semaphore.Semaphore.TryAcquire", func() error { return errOf(s.TryAcquire(ctx)) }, semaphore.ErrClosed},
		{"semaphore.Mutex.Acquire", func() error { return errOf(sm.Acquire(ctx)) }, semaphore.ErrClosed},
		{"leases.Resume", func() error { return errOf(leases.Resume(ctx, c, lease.Node())) }, leases.ErrClosed},
		{"sharedcount.SharedCount.Get", func() error { return errOf(count.Get(ctx)) }, sharedcount.ErrClosed},
		{"sharedcount.SharedCount.Set", func() error { return count.Set(ctx, 3) }, sharedcount.ErrClosed},
		{"sharedcount.SharedCount.TrySet", func() error { return errOf(count.TrySet(ctx, 3, 0)) }, sharedcount.ErrClosed},
		{"sharedcount.SharedCount.Watch", func() error { return errOf(count.Watch(ctx)) }, sharedcount.ErrClosed},
		{"leader.Latch.Start, then Await", func() error {
			if err := latch.Start(context.Background()); err != nil {
				return err
			}
			return errOf(latch.Await(ctx))
		}, leader.ErrClosed},
		{"leader.Latch.Await of a latch started before", func() error {
			<-term.Lost()
			return errOf(running.Await(ctx))
		}, leader.ErrClosed},
		{"leader.Selector.Run", func() error {
			return selector.Run(ctx)
		}, leader.ErrClosed},
		{"leader.Observer.Leader", func() error { return errOf(observer.Leader(ctx)) }, leader.ErrClosed},
		{"leader.Observer.Watch", func() error { return errOf(observer.Watch(ctx)) }, leader.ErrClosed},
		{"cache.Cache.Start, then AwaitInitialized", func() error {
			if err := cc.Start(context.Background()); err != nil {
				return err
			}
			return cc.AwaitInitialized(ctx)
		}, cache.ErrClosed},
		{"cache.Cache.Err of a cache started before", func() error {
			<-runningCache.Done()
			return runningCache.Err()
		}, cache.ErrClosed},
		{"node.Node.Start, then AwaitCreated", func() error {
			if err := fresh.Start(context.Background()); err != nil {
				return err
			}
			return fresh.AwaitCreated(ctx)
		}, node.ErrClosed},
		{"node.Node.Err of a node started before", func() error {
			<-kept.Done()
			return kept.Err()
		}, node.ErrClosed},
		{"discovery.Discovery.Register", func() error {
			return errOf(d.Register(ctx, discovery.Instance[map[string]any]{Name: "api", ID: "two"}))
		}, discovery.ErrClosed},
		{"discovery.Discovery.Instances", func() error { return errOf(d.Instances(ctx, "api")) }, discovery.ErrClosed},
		{"discovery.Provider.Instance", func() error { return errOf(provider.Instance()) }, discovery.ErrClosed},
		{"framework.Client.Create", func() error { return errOf(c.Create(ctx, root+"/x", nil, framework.Persistent)) }, framework.ErrClosed},
	}, queueBarrierAtomicClosedCases(t, c, root)...)
}

// After the client's Close, every recipe's call fails with an error that
// matches the library's ErrClosed and the recipe's own name for it, and
// says so in words (a provider says closed, not "no instance").
func TestClosed_EveryRecipeSaysClosedAfterTheClientsClose(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	cases := closedCases(t, c, zktest.UniquePath(t))
	require.NoError(t, c.Close())

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { done <- tc.call() }() // ends when the call returns
			select {
			case err := <-done:
				require.Error(t, err)
				t.Logf("%s: %v", tc.name, err)
				assert.ErrorIs(t, err, zkrecipes.ErrClosed)
				assert.ErrorIs(t, err, tc.own)
				assert.NotErrorIs(t, err, discovery.ErrNoInstance)
			case <-time.After(10 * time.Second):
				t.Fatal("the call after Close did not return")
			}
		})
	}
}

// A provider closed itself says so, started or not, rather than "no
// instance" or an instance it can no longer vouch for.
func TestClosed_AProviderAfterItsCloseSaysClosed(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	ctx := zktest.Context(t)
	d, err := discovery.New[map[string]any](c, zktest.UniquePath(t))
	require.NoError(t, err)
	reg, err := d.Register(ctx, discovery.Instance[map[string]any]{Name: "api", ID: "one"})
	require.NoError(t, err)
	defer func() { assert.NoError(t, reg.Close(ctx)) }()
	for _, started := range []bool{true, false} {
		p, err := d.Provider("api")
		require.NoError(t, err)
		if started {
			require.NoError(t, p.Start(ctx))
			require.NoError(t, p.AwaitInitialized(ctx))
			_, err = p.Instance()
			require.NoError(t, err)
		}
		require.NoError(t, p.Close(ctx))
		_, err = p.Instance()
		assert.ErrorIs(t, err, discovery.ErrClosed, "started: %v", started)
		assert.NotErrorIs(t, err, discovery.ErrNoInstance, "started: %v", started)
	}
}
