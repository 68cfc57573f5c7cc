package reliability_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
	"github.com/zkrecipes/zkrecipes/recipes/discovery"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/multilock"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/node"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
)

// endedCall is one call of a recipe or of the client that may write, made
// by prepare (which may do what the call needs first, with a live context)
// and then run with a context that has already ended.
type endedCall struct {
	name    string
	prepare func(t *testing.T, c *framework.Client, root string) func(ctx context.Context) error
}

// endedCalls are the calls of every recipe and of the client that send
// something to the server.
func endedCalls() []endedCall {
	errOf := func(_ any, err error) error { return err }
	newMutex := func(t *testing.T, c *framework.Client, root string) *mutex.Mutex {
		m, err := mutex.New(c, root+"/mutex")
		require.NoError(t, err)
		return m
	}
	newSemaphore := func(t *testing.T, c *framework.Client, root string, opts ...semaphore.Option) *semaphore.Semaphore {
		s, err := semaphore.New(c, root+"/semaphore", 2, opts...)
		require.NoError(t, err)
		return s
	}
	newRW := func(t *testing.T, c *framework.Client, root string) *rwlock.ReadWriteLock {
		rw, err := rwlock.New(c, root+"/rwlock")
		require.NoError(t, err)
		return rw
	}
	newMulti := func(t *testing.T, c *framework.Client, root string) *multilock.Lock {
		sm, err := semaphore.NewMutex(c, root+"/semaphore-mutex")
		require.NoError(t, err)
		l, err := multilock.New(multilock.Mutex(newMutex(t, c, root)), multilock.SemaphoreMutex(sm))
		require.NoError(t, err)
		return l
	}
	newCount := func(t *testing.T, c *framework.Client, root string) *sharedcount.SharedCount {
		s, err := sharedcount.New(c, root+"/count", 1)
		require.NoError(t, err)
		return s
	}
	newDiscovery := func(t *testing.T, c *framework.Client, root string) *discovery.Discovery[map[string]any] {
		d, err := discovery.New[map[string]any](c, root+"/services")
		require.NoError(t, err)
		return d
	}
	return []endedCall{
		{"mutex.Mutex.Acquire", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			m := newMutex(t, c, root)
			return func(ctx context.Context) error { return errOf(m.Acquire(ctx)) }
		}},
		{"mutex.Mutex.TryAcquire", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			m := newMutex(t, c, root)
			return func(ctx context.Context) error { return errOf(m.TryAcquire(ctx)) }
		}},
		{"mutex.Mutex.AcquireTimeout", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			m := newMutex(t, c, root)
			return func(ctx context.Context) error { return errOf(m.AcquireTimeout(ctx, time.Minute)) }
		}},
		{"mutex.Revoke", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			h, err := newMutex(t, c, root).Acquire(mutex.ContextWithOwner(zktest.Context(t), "holder"))
			require.NoError(t, err)
			return func(ctx context.Context) error { return mutex.Revoke(ctx, c, h.Node()) }
		}},
		{"rwlock read Lock.Acquire", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			l := newRW(t, c, root).ReadLock()
			return func(ctx context.Context) error { return errOf(l.Acquire(ctx)) }
		}},
		{"rwlock write Lock.TryAcquire", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			l := newRW(t, c, root).WriteLock()
			return func(ctx context.Context) error { return errOf(l.TryAcquire(ctx)) }
		}},
		{"rwlock write Lock.AcquireTimeout", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			l := newRW(t, c, root).WriteLock()
			return func(ctx context.Context) error { return errOf(l.AcquireTimeout(ctx, time.Minute)) }
		}},
		{"multilock.Lock.Acquire", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			l := newMulti(t, c, root)
			return func(ctx context.Context) error { return errOf(l.Acquire(ctx)) }
		}},
		{"multilock.Lock.TryAcquire", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			l := newMulti(t, c, root)
			return func(ctx context.Context) error { return errOf(l.TryAcquire(ctx)) }
		}},
		{"multilock.Lock.AcquireTimeout", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			l := newMulti(t, c, root)
			return func(ctx context.Context) error { return errOf(l.AcquireTimeout(ctx, time.Minute)) }
		}},
		{"semaphore.Semaphore.Acquire", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			s := newSemaphore(t, c, root)
			return func(ctx context.Context) error { return errOf(s.Acquire(ctx)) }
		}},
		{"semaphore.Semaphore.AcquireN", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			s := newSemaphore(t, c, root)
			return func(ctx context.Context) error { return errOf(s.AcquireN(ctx, 2)) }
		}},
		{"semaphore.Semaphore.TryAcquire", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			s := newSemaphore(t, c, root)
			return func(ctx context.Context) error { return errOf(s.TryAcquire(ctx)) }
		}},
		{"semaphore.Semaphore.TryAcquireN", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			s := newSemaphore(t, c, root)
			return func(ctx context.Context) error { return errOf(s.TryAcquireN(ctx, 2)) }
		}},
		{"semaphore.Semaphore.AcquireNTimeout", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			s := newSemaphore(t, c, root)
			return func(ctx context.Context) error { return errOf(s.AcquireNTimeout(ctx, 1, time.Minute)) }
		}},
		{"semaphore.Semaphore.Acquire, TTL leases", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			s := newSemaphore(t, c, root, semaphore.WithTTL(time.Minute))
			return func(ctx context.Context) error { return errOf(s.Acquire(ctx)) }
		}},
		{"semaphore.Semaphore.Resume", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			s := newSemaphore(t, c, root, semaphore.WithTTL(time.Minute))
			l, err := s.Acquire(zktest.Context(t))
			require.NoError(t, err)
			return func(ctx context.Context) error { return errOf(s.Resume(ctx, baseName(l.Node()))) }
		}},
		{"semaphore.Mutex.Acquire", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			m, err := semaphore.NewMutex(c, root+"/semaphore-mutex")
			require.NoError(t, err)
			return func(ctx context.Context) error { return errOf(m.Acquire(ctx)) }
		}},
		{"leases.Resume", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			l, err := newSemaphore(t, c, root, semaphore.WithTTL(time.Minute)).Acquire(zktest.Context(t))
			require.NoError(t, err)
			return func(ctx context.Context) error { return errOf(leases.Resume(ctx, c, l.Node())) }
		}},
		{"leases.Lease.Renew", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			l, err := newSemaphore(t, c, root, semaphore.WithTTL(time.Minute)).Acquire(zktest.Context(t))
			require.NoError(t, err)
			return func(ctx context.Context) error { return l.Renew(ctx) }
		}},
		{"sharedcount.SharedCount.Set", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			s := newCount(t, c, root)
			return func(ctx context.Context) error { return s.Set(ctx, 3) }
		}},
		{"sharedcount.SharedCount.TrySet", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			s := newCount(t, c, root)
			return func(ctx context.Context) error { return errOf(s.TrySet(ctx, 3, 0)) }
		}},
		{"leader.Latch.Start", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			l, err := leader.NewLatch(c, root+"/latch")
			require.NoError(t, err)
			return func(ctx context.Context) error { return l.Start(ctx) }
		}},
		{"leader.Selector.Run", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			s, err := leader.NewSelector(c, root+"/selector", func(context.Context) error { return nil })
			require.NoError(t, err)
			return s.Run
		}},
		{"leader.Selector.Start", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			s, err := leader.NewSelector(c, root+"/selector", func(context.Context) error { return nil })
			require.NoError(t, err)
			return s.Start
		}},
		{"cache.Cache.Start", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			cc, err := cache.New(c, root+"/cache")
			require.NoError(t, err)
			return func(ctx context.Context) error { return cc.Start(ctx) }
		}},
		{"node.Node.Start", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			n, err := node.New(c, root+"/node", framework.Ephemeral, []byte("x"))
			require.NoError(t, err)
			return func(ctx context.Context) error { return n.Start(ctx) }
		}},
		{"node.TTLNode.Start", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			n, err := node.NewTTL(c, root+"/ttl", time.Minute, []byte("x"))
			require.NoError(t, err)
			return func(ctx context.Context) error { return n.Start(ctx) }
		}},
		{"node.GroupMember.Start", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			g, err := node.NewGroupMember(c, root+"/group", "me", []byte("x"))
			require.NoError(t, err)
			return func(ctx context.Context) error { return g.Start(ctx) }
		}},
		{"discovery.Discovery.Register", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			d := newDiscovery(t, c, root)
			return func(ctx context.Context) error {
				return errOf(d.Register(ctx, discovery.Instance[map[string]any]{Name: "api", ID: "one"}))
			}
		}},
		{"discovery.Discovery.Register, static", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			d := newDiscovery(t, c, root)
			return func(ctx context.Context) error {
				inst := discovery.Instance[map[string]any]{Name: "api", ID: "one", ServiceType: discovery.Static}
				return errOf(d.Register(ctx, inst))
			}
		}},
		{"discovery.Registration.Update", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			inst := discovery.Instance[map[string]any]{Name: "api", ID: "one"}
			r, err := newDiscovery(t, c, root).Register(zktest.Context(t), inst)
			require.NoError(t, err)
			t.Cleanup(func() { _ = r.Close(context.Background()) })
			inst.Address = "10.0.0.1"
			return func(ctx context.Context) error { return r.Update(ctx, inst) }
		}},
		{"framework.Client.Create", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			return func(ctx context.Context) error { return errOf(c.Create(ctx, root+"/x", nil, framework.Persistent)) }
		}},
		{"framework.Client.Create, parents", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			return func(ctx context.Context) error {
				return errOf(c.Create(ctx, root+"/a/b", nil, framework.Ephemeral, framework.WithParents()))
			}
		}},
		{"framework.Client.CreateProtected", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			return func(ctx context.Context) error {
				return errOf(c.CreateProtected(ctx, root+"/p-", nil, framework.EphemeralSequential, framework.WithParents()))
			}
		}},
		{"framework.Hooks.CreateProtectedAndList", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			return func(ctx context.Context) error {
				_, _, err := c.Hooks().CreateProtectedAndList(ctx, root+"/p-", nil, framework.EphemeralSequential, framework.WithParents())
				return err
			}
		}},
		{"framework.Client.EnsurePath", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			return func(ctx context.Context) error { return c.EnsurePath(ctx, root+"/a/b") }
		}},
		{"framework.Client.Set", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			return func(ctx context.Context) error { return errOf(c.Set(ctx, root, []byte("x"), -1)) }
		}},
		{"framework.Client.Delete", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			return func(ctx context.Context) error { return c.Delete(ctx, root, -1) }
		}},
		{"framework.Client.Multi", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			return func(ctx context.Context) error {
				return errOf(c.Multi(ctx, framework.CreateOp(root+"/x", nil, framework.Persistent)))
			}
		}},
		{"framework.Client.Watch", func(t *testing.T, c *framework.Client, root string) func(context.Context) error {
			return func(ctx context.Context) error { return errOf(c.Watch(ctx, root, framework.WatchRecursive)) }
		}},
	}
}

// baseName is path.Base for the test's node paths.
func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}

// A call whose ctx has ended before it starts sends nothing to the server,
// in every recipe and in the client: no node appears, and the error is the
// context's.
func TestEndedContext_EveryCallSendsNothing(t *testing.T) {
	servers := zktest.Servers(t)
	observer := zktest.Connect(t, servers)
	for _, tc := range slices.Concat(endedCalls(), queueEndedCalls(), barrierAtomicEndedCalls()) {
		t.Run(tc.name, func(t *testing.T) {
			proxy := zktest.NewProxy(t, servers)
			c := zktest.Connect(t, proxy.Addr())
			live := zktest.Context(t)
			root := zktest.UniquePath(t)
			require.NoError(t, c.EnsurePath(live, root))
			call := tc.prepare(t, c, root)
			before, err := nodesUnder(observer, root)
			require.NoError(t, err)
			// A round trip on the client's connection: every request sent
			// before it has passed the proxy when its answer is in.
			require.NoError(t, c.Sync(live, root))
			sent := proxy.Sent()

			ended, cancel := context.WithCancel(context.Background())
			cancel()
			err = call(ended)

			require.NoError(t, c.Sync(live, root))
			assert.ErrorIs(t, err, context.Canceled)
			assert.Equal(t, int64(1), proxy.Sent()-sent, "requests sent besides the Sync that follows the call")
			after, err := nodesUnder(observer, root)
			require.NoError(t, err)
			// The server may reap an empty container meanwhile (the
			// semaphore's locks after an acquire): nodes may go, none come.
			assert.Subset(t, before, after, "nodes under the test's root")
		})
	}
}

// givingBack is one release or close of what prepare took with a live
// context, and the nodes it must delete; closes, which may return ctx's
// error and finish in the background, have eventually set.
type givingBack struct {
	name       string
	eventually bool
	prepare    func(t *testing.T, c *framework.Client, root string) (giveBack func(ctx context.Context) error, nodes []string)
}

// givingBacks are the releases and closes of every recipe.
func givingBacks() []givingBack {
	lease := func(t *testing.T, c *framework.Client, root string, opts ...semaphore.Option) (*semaphore.Semaphore, *leases.Lease) {
		s, err := semaphore.New(c, root+"/semaphore", 2, opts...)
		require.NoError(t, err)
		l, err := s.Acquire(zktest.Context(t))
		require.NoError(t, err)
		return s, l
	}
	type giveBack = func(context.Context) error
	return []givingBack{
		{"mutex.Hold.Release", false, func(t *testing.T, c *framework.Client, root string) (giveBack, []string) {
			m, err := mutex.New(c, root+"/mutex")
			require.NoError(t, err)
			h, err := m.Acquire(zktest.Context(t))
			require.NoError(t, err)
			return h.Release, []string{h.Node()}
		}},
		{"mutex.Mutex.Release", false, func(t *testing.T, c *framework.Client, root string) (giveBack, []string) {
			m, err := mutex.New(c, root+"/mutex")
			require.NoError(t, err)
			h, err := m.Acquire(mutex.ContextWithOwner(zktest.Context(t), "owner"))
			require.NoError(t, err)
			return func(ctx context.Context) error { return m.Release(mutex.ContextWithOwner(ctx, "owner")) }, []string{h.Node()}
		}},
		{"rwlock write Lock.Release", false, func(t *testing.T, c *framework.Client, root string) (giveBack, []string) {
			rw, err := rwlock.New(c, root+"/rwlock")
			require.NoError(t, err)
			h, err := rw.WriteLock().Acquire(rwlock.ContextWithOwner(zktest.Context(t), "owner"))
			require.NoError(t, err)
			return func(ctx context.Context) error { return rw.WriteLock().Release(rwlock.ContextWithOwner(ctx, "owner")) }, []string{h.Node()}
		}},
		{"multilock.Hold.Release", false, func(t *testing.T, c *framework.Client, root string) (giveBack, []string) {
			m, err := mutex.New(c, root+"/mutex")
			require.NoError(t, err)
			sm, err := semaphore.NewMutex(c, root+"/semaphore-mutex")
			require.NoError(t, err)
			l, err := multilock.New(multilock.Mutex(m), multilock.SemaphoreMutex(sm))
			require.NoError(t, err)
			h, err := l.Acquire(zktest.Context(t))
			require.NoError(t, err)
			return h.Release, h.Nodes()
		}},
		{"leases.Lease.Release", false, func(t *testing.T, c *framework.Client, root string) (giveBack, []string) {
			_, l := lease(t, c, root)
			return l.Release, []string{l.Node()}
		}},
		{"leases.Lease.Release, TTL", false, func(t *testing.T, c *framework.Client, root string) (giveBack, []string) {
			_, l := lease(t, c, root, semaphore.WithTTL(time.Minute))
			return l.Release, []string{l.Node()}
		}},
		{"leases.ReleaseAll", false, func(t *testing.T, c *framework.Client, root string) (giveBack, []string) {
			s, err := semaphore.New(c, root+"/semaphore", 2)
			require.NoError(t, err)
			ls, err := s.AcquireN(zktest.Context(t), 2)
			require.NoError(t, err)
			return func(ctx context.Context) error { return leases.ReleaseAll(ctx, ls...) }, []string{ls[0].Node(), ls[1].Node()}
		}},
		{"semaphore.Semaphore.Release", false, func(t *testing.T, c *framework.Client, root string) (giveBack, []string) {
			s, l := lease(t, c, root)
			return func(ctx context.Context) error { return s.Release(ctx, l) }, []string{l.Node()}
		}},
		{"semaphore.Mutex.Release", false, func(t *testing.T, c *framework.Client, root string) (giveBack, []string) {
			m, err := semaphore.NewMutex(c, root+"/semaphore-mutex")
			require.NoError(t, err)
			l, err := m.Acquire(zktest.Context(t))
			require.NoError(t, err)
			return m.Release, []string{l.Node()}
		}},
		{"leader.Latch.Close", true, func(t *testing.T, c *framework.Client, root string) (giveBack, []string) {
			l, err := leader.NewLatch(c, root+"/latch")
			require.NoError(t, err)
			require.NoError(t, l.Start(context.Background()))
			term, err := l.Await(zktest.Context(t))
			require.NoError(t, err)
			return l.Close, []string{term.Node()}
		}},
		{"node.Node.Close", true, func(t *testing.T, c *framework.Client, root string) (giveBack, []string) {
			n, err := node.New(c, root+"/node", framework.Ephemeral, nil)
			require.NoError(t, err)
			require.NoError(t, n.Start(context.Background()))
			require.NoError(t, n.AwaitCreated(zktest.Context(t)))
			return n.Close, []string{n.Node()}
		}},
		{"node.GroupMember.Close", true, func(t *testing.T, c *framework.Client, root string) (giveBack, []string) {
			g, err := node.NewGroupMember(c, root+"/group", "me", nil)
			require.NoError(t, err)
			require.NoError(t, g.Start(context.Background()))
			require.NoError(t, g.AwaitJoined(zktest.Context(t)))
			return g.Close, []string{g.Node()}
		}},
		{"discovery.Registration.Close", true, func(t *testing.T, c *framework.Client, root string) (giveBack, []string) {
			d, err := discovery.New[map[string]any](c, root+"/services")
			require.NoError(t, err)
			r, err := d.Register(zktest.Context(t), discovery.Instance[map[string]any]{Name: "api", ID: "one"})
			require.NoError(t, err)
			return r.Close, []string{r.Node()}
		}},
	}
}

// A release, or a close, whose ctx has ended already still gives back what
// it holds: the library's rule for finishing after the caller's context
// has ended (a deferred release after a timeout still deletes the node).
// A release finishes before it returns; a close may return ctx's error and
// finish in the background.
func TestEndedContext_GivingBackStillFinishes(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	for _, tc := range append(givingBacks(), queueBarrierGivingBacks()...) {
		t.Run(tc.name, func(t *testing.T) {
			giveBack, nodes := tc.prepare(t, c, zktest.UniquePath(t))
			require.NotEmpty(t, nodes)
			require.Empty(t, missing(t, c, nodes), "the nodes are there before")

			ended, cancel := context.WithCancel(context.Background())
			cancel()
			err := giveBack(ended)

			if !tc.eventually {
				assert.NoError(t, err)
				assert.Equal(t, nodes, missing(t, c, nodes), "the nodes are gone when it returns")
				return
			}
			if err != nil {
				assert.ErrorIs(t, err, context.Canceled)
			}
			assert.Eventually(t, func() bool { return len(missing(t, c, nodes)) == len(nodes) }, 10*time.Second, 10*time.Millisecond,
				"the nodes are gone")
		})
	}
}

// missing returns those of nodes that do not exist. It uses no require,
// so that Eventually's goroutine may call it.
func missing(t *testing.T, c *framework.Client, nodes []string) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out []string
	for _, n := range nodes {
		ok, _, err := c.Exists(ctx, n)
		if assert.NoError(t, err) && !ok {
			out = append(out, n)
		}
	}
	return out
}
