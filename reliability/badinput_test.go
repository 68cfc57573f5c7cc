package reliability_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/atomicvalue"
	"github.com/zkrecipes/zkrecipes/recipes/barrier"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/multilock"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/mutex/lockdriver"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
)

// badPaths are paths every recipe and every client call must refuse.
var badPaths = map[string]string{
	"empty":              "",
	"relative":           "locks/a",
	"trailing slash":     "/locks/",
	"double slash":       "//locks",
	"empty segment":      "/locks//a",
	"dot":                "/locks/.",
	"dot dot":            "/locks/../a",
	"NUL":                "/locks/a\x00b",
	"control character":  "/locks/a\x01",
	"DEL":                "/locks/\x7f",
	"C1 control":         "/locks/\u0085",
	"invalid UTF-8":      "/locks/\xff",
	"beyond the BMP":     "/locks/\U0001F512",
	"private use (Java)": "/locks/\ue000",
}

// badCase is one call that must fail with one of want.
type badCase struct {
	name string
	call func() error
	want []error // errors.Is one of them
}

// constructorCases are the calls of every recipe constructor with each bad
// path, the root, a nil client, nil options and bad option values.
func constructorCases(c *framework.Client, count *sharedcount.SharedCount) []badCase {
	invalid := []error{zkrecipes.ErrInvalidArgument}
	errOf := func(_ any, err error) error { return err }
	ctors := map[string]func(c *framework.Client, path string) error{
		"mutex.New": func(c *framework.Client, p string) error { return errOf(mutex.New(c, p)) },
		"mutex.NewWithDriver": func(c *framework.Client, p string) error {
			return errOf(mutex.NewWithDriver(c, p, zkpath.LockName, lockdriver.StandardDriver(1)))
		},
		"semaphore.New":        func(c *framework.Client, p string) error { return errOf(semaphore.New(c, p, 2)) },
		"semaphore.NewCounted": func(c *framework.Client, p string) error { return errOf(semaphore.NewCounted(c, p, count)) },
		"semaphore.NewMutex":   func(c *framework.Client, p string) error { return errOf(semaphore.NewMutex(c, p)) },
		"sharedcount.New":      func(c *framework.Client, p string) error { return errOf(sharedcount.New(c, p, 1)) },
		"rwlock.New":           func(c *framework.Client, p string) error { return errOf(rwlock.New(c, p)) },
		"atomicvalue.NewLong":  func(c *framework.Client, p string) error { return errOf(atomicvalue.NewLong(c, p)) },
		"atomicvalue.NewInt":   func(c *framework.Client, p string) error { return errOf(atomicvalue.NewInt(c, p)) },
		"atomicvalue.NewBytes": func(c *framework.Client, p string) error { return errOf(atomicvalue.NewBytes(c, p)) },
		"atomicvalue.NewCachedLong": func(c *framework.Client, p string) error {
			return errOf(atomicvalue.NewCachedLong(c, p, 10))
		},
		"atomicvalue.NewLong, lock path": func(c *framework.Client, p string) error {
			return errOf(atomicvalue.NewLong(c, "/ok", atomicvalue.WithPromotedToLock(atomicvalue.PromotedToLock{Path: p})))
		},
		"barrier.New":       func(c *framework.Client, p string) error { return errOf(barrier.New(c, p)) },
		"barrier.NewDouble": func(c *framework.Client, p string) error { return errOf(barrier.NewDouble(c, p, 2)) },
		"queue.New":         func(c *framework.Client, p string) error { return errOf(queue.New(c, p, queue.StringCodec{})) },
		"queue.NewPriorityQueue": func(c *framework.Client, p string) error {
			return errOf(queue.NewPriorityQueue(c, p, queue.StringCodec{}))
		},
		"queue.NewDelayQueue": func(c *framework.Client, p string) error {
			return errOf(queue.NewDelayQueue(c, p, queue.StringCodec{}))
		},
		"queue.NewIDQueue": func(c *framework.Client, p string) error { return errOf(queue.NewIDQueue(c, p, queue.StringCodec{})) },
		"queue.NewSimple":  func(c *framework.Client, p string) error { return errOf(queue.NewSimple(c, p)) },
		"queue.New, lock path": func(c *framework.Client, p string) error {
			return errOf(queue.New(c, "/ok", queue.StringCodec{}, queue.WithLockPath(p)))
		},
	}
	var cases []badCase
	for ctor, newAt := range ctors {
		for what, p := range badPaths {
			cases = append(cases, badCase{ctor + ", " + what + " path", func() error { return newAt(c, p) }, invalid})
		}
		cases = append(cases,
			badCase{ctor + ", the root", func() error { return newAt(c, "/") }, invalid},
			badCase{ctor + ", nil client", func() error { return newAt(nil, "/ok") }, invalid},
		)
	}
	policy := framework.ErrorPolicy(7)
	cases = append(cases,
		badCase{"mutex.New, nil option", func() error { return errOf(mutex.New(c, "/ok", nil)) }, invalid},
		badCase{"mutex.New, bad error policy", func() error { return errOf(mutex.New(c, "/ok", mutex.WithErrorPolicy(policy))) }, invalid},
		badCase{"mutex.New, nil revocation handler", func() error { return errOf(mutex.New(c, "/ok", mutex.WithRevocation(nil))) }, invalid},
		badCase{"mutex.NewWithDriver, nil driver", func() error { return errOf(mutex.NewWithDriver(c, "/ok", "lock-", nil)) }, invalid},
		badCase{"mutex.NewWithDriver, empty lock name", func() error {
			return errOf(mutex.NewWithDriver(c, "/ok", "", lockdriver.StandardDriver(1)))
		}, invalid},
		badCase{"mutex.NewWithDriver, lock name with a slash", func() error {
			return errOf(mutex.NewWithDriver(c, "/ok", "a/b-", lockdriver.StandardDriver(1)))
		}, invalid},
		badCase{"mutex.NewWithDriver, lock name with NUL", func() error {
			return errOf(mutex.NewWithDriver(c, "/ok", "lock\x00-", lockdriver.StandardDriver(1)))
		}, invalid},
		badCase{"semaphore.New, maximum 0", func() error { return errOf(semaphore.New(c, "/ok", 0)) }, invalid},
		badCase{"semaphore.New, negative maximum", func() error { return errOf(semaphore.New(c, "/ok", -1)) }, invalid},
		badCase{"semaphore.New, nil option", func() error { return errOf(semaphore.New(c, "/ok", 1, nil)) }, invalid},
		badCase{"semaphore.New, bad error policy", func() error {
			return errOf(semaphore.New(c, "/ok", 1, semaphore.WithErrorPolicy(policy)))
		}, invalid},
		badCase{"semaphore.New, zero maximum hold", func() error { return errOf(semaphore.New(c, "/ok", 1, semaphore.WithMaxHold(0))) }, invalid},
		badCase{"semaphore.New, negative maximum hold", func() error {
			return errOf(semaphore.New(c, "/ok", 1, semaphore.WithMaxHold(-time.Second)))
		}, invalid},
		badCase{"semaphore.NewCounted, nil count", func() error { return errOf(semaphore.NewCounted(c, "/ok", nil)) }, invalid},
		badCase{"sharedcount.New, nil option", func() error { return errOf(sharedcount.New(c, "/ok", 1, nil)) }, invalid},
		badCase{"leases.Issue, nil client", func() error {
			return errOf(leases.Issue(nil, framework.Node{Path: "/ok", Session: c.Session()}, nil))
		}, invalid},
		badCase{"leases.Issue, no path", func() error { return errOf(leases.Issue(c, framework.Node{Session: c.Session()}, nil)) }, invalid},
		badCase{"leases.Issue, no session", func() error { return errOf(leases.Issue(c, framework.Node{Path: "/ok"}, nil)) }, invalid},
		badCase{"leases.Issue, zero maximum hold", func() error {
			return errOf(leases.Issue(c, framework.Node{Path: "/ok", Session: c.Session()}, nil, leases.WithMaxHold(0)))
		}, invalid},
		badCase{"leases.Issue, bad error policy", func() error {
			return errOf(leases.Issue(c, framework.Node{Path: "/ok", Session: c.Session()}, nil, leases.WithErrorPolicy(policy)))
		}, invalid},
		badCase{"mutex.Revoke, nil client", func() error { return mutex.Revoke(context.Background(), nil, "/ok") }, invalid},
		badCase{"rwlock.New, nil option", func() error { return errOf(rwlock.New(c, "/ok", nil)) }, invalid},
		badCase{"rwlock.New, bad error policy", func() error { return errOf(rwlock.New(c, "/ok", rwlock.WithErrorPolicy(policy))) }, invalid},
		badCase{"mutex.New, nil logger", func() error { return errOf(mutex.New(c, "/ok", mutex.WithLogger(nil))) }, invalid},
		badCase{"rwlock.New, nil logger", func() error { return errOf(rwlock.New(c, "/ok", rwlock.WithLogger(nil))) }, invalid},
		badCase{"semaphore.New, nil logger", func() error { return errOf(semaphore.New(c, "/ok", 1, semaphore.WithLogger(nil))) }, invalid},
		badCase{"sharedcount.New, nil logger", func() error { return errOf(sharedcount.New(c, "/ok", 1, sharedcount.WithLogger(nil))) }, invalid},
		badCase{"leases.Issue, nil logger", func() error {
			return errOf(leases.Issue(c, framework.Node{Path: "/ok", Session: c.Session()}, nil, leases.WithLogger(nil)))
		}, invalid},
	)
	cases = append(cases, atomicValueAndBarrierCases(c)...)
	return append(cases, queueCases(c)...)
}

// queueCases are the queues' constructors with bad codecs, counts,
// options and lock paths.
func queueCases(c *framework.Client) []badCase {
	invalid := []error{zkrecipes.ErrInvalidArgument}
	errOf := func(_ any, err error) error { return err }
	newQueue := func(opts ...queue.Option) error { return errOf(queue.New(c, "/ok/q", queue.StringCodec{}, opts...)) }
	return []badCase{
		{"queue.New, nil codec", func() error { return errOf(queue.New[string](c, "/ok/q", nil)) }, invalid},
		{"queue.NewPriorityQueue, nil codec", func() error { return errOf(queue.NewPriorityQueue[int](c, "/ok/q", nil)) }, invalid},
		{"queue.New, nil option", func() error { return newQueue(nil) }, invalid},
		{"queue.New, nil logger", func() error { return newQueue(queue.WithLogger(nil)) }, invalid},
		{"queue.New, 0 max items", func() error { return newQueue(queue.WithMaxItems(0)) }, invalid},
		{"queue.New, negative max items", func() error { return newQueue(queue.WithMaxItems(-1)) }, invalid},
		{"queue.New, the queue's own path as lock path", func() error { return newQueue(queue.WithLockPath("/ok/q")) }, invalid},
		{"queue.New, a lock path under the queue", func() error { return newQueue(queue.WithLockPath("/ok/q/locks")) }, invalid},
		{"queue.New, the queue under its lock path", func() error { return newQueue(queue.WithLockPath("/ok")) }, invalid},
		{"queue.NewSimple, a lock path", func() error { return errOf(queue.NewSimple(c, "/ok/q", queue.WithLockPath("/ok/l"))) }, invalid},
		{"queue.NewSimple, max items", func() error { return errOf(queue.NewSimple(c, "/ok/q", queue.WithMaxItems(5))) }, invalid},
	}
}

// atomicValueAndBarrierCases are the atomic values' and the barriers'
// constructors with bad counts and options.
func atomicValueAndBarrierCases(c *framework.Client) []badCase {
	invalid := []error{zkrecipes.ErrInvalidArgument}
	errOf := func(_ any, err error) error { return err }
	lock := func(p atomicvalue.PromotedToLock) atomicvalue.Option { return atomicvalue.WithPromotedToLock(p) }
	return []badCase{
		{"atomicvalue.NewLong, nil option", func() error { return errOf(atomicvalue.NewLong(c, "/ok", nil)) }, invalid},
		{"atomicvalue.NewLong, nil logger", func() error { return errOf(atomicvalue.NewLong(c, "/ok", atomicvalue.WithLogger(nil))) }, invalid},
		{"atomicvalue.NewInt, nil retry policy", func() error {
			return errOf(atomicvalue.NewInt(c, "/ok", atomicvalue.WithRetryPolicy(nil)))
		}, invalid},
		{"atomicvalue.NewBytes, no lock path", func() error {
			return errOf(atomicvalue.NewBytes(c, "/ok", lock(atomicvalue.PromotedToLock{})))
		}, invalid},
		{"atomicvalue.NewLong, negative lock timeout", func() error {
			return errOf(atomicvalue.NewLong(c, "/ok", lock(atomicvalue.PromotedToLock{Path: "/l", Timeout: -time.Second})))
		}, invalid},
		{"atomicvalue.NewCachedLong, chunk 0", func() error { return errOf(atomicvalue.NewCachedLong(c, "/ok", 0)) }, invalid},
		{"atomicvalue.NewCachedLong, negative chunk", func() error { return errOf(atomicvalue.NewCachedLong(c, "/ok", -3)) }, invalid},
		{"atomicvalue.NewCachedLong, nil option", func() error { return errOf(atomicvalue.NewCachedLong(c, "/ok", 1, nil)) }, invalid},
		{"barrier.New, nil option", func() error { return errOf(barrier.New(c, "/ok", nil)) }, invalid},
		{"barrier.New, nil logger", func() error { return errOf(barrier.New(c, "/ok", barrier.WithLogger(nil))) }, invalid},
		{"barrier.NewDouble, no members", func() error { return errOf(barrier.NewDouble(c, "/ok", 0)) }, invalid},
		{"barrier.NewDouble, negative members", func() error { return errOf(barrier.NewDouble(c, "/ok", -1)) }, invalid},
		{"barrier.NewDouble, nil logger", func() error { return errOf(barrier.NewDouble(c, "/ok", 2, barrier.WithLogger(nil))) }, invalid},
	}
}

// methodCases are calls of recipe methods with bad counts and durations,
// and releases or returns of what is not held.
func methodCases(t *testing.T, c *framework.Client, root string) []badCase {
	ctx := zktest.Context(t)
	invalid := []error{zkrecipes.ErrInvalidArgument}
	notOwner := []error{zkrecipes.ErrNotOwner}
	m, err := mutex.New(c, root+"/mutex")
	require.NoError(t, err)
	s, err := semaphore.New(c, root+"/semaphore", 2)
	require.NoError(t, err)
	other, err := semaphore.New(c, root+"/other", 2)
	require.NoError(t, err)
	sm, err := semaphore.NewMutex(c, root+"/semaphore-mutex")
	require.NoError(t, err)
	rw, err := rwlock.New(c, root+"/rwlock")
	require.NoError(t, err)
	errOf := func(_ any, err error) error { return err }
	cases := []badCase{
		// A zero or negative timeout is one attempt, not bad input.
		{"Mutex.Acquire, owner pointing to a zero-size value", func() error {
			type request struct{}
			return errOf(m.Acquire(mutex.ContextWithOwner(ctx, &request{})))
		}, invalid},
		{"Mutex.Acquire, owner not comparable", func() error {
			return errOf(m.Acquire(mutex.ContextWithOwner(ctx, []int{1})))
		}, invalid},
		{"Mutex.Release, nothing held", func() error { return m.Release(ctx) }, notOwner},
		{"Mutex.Release, another owner's hold", func() error { return m.Release(mutex.ContextWithOwner(ctx, "nobody")) }, notOwner},
		{"Semaphore.AcquireN, 0 leases", func() error { return errOf(s.AcquireN(ctx, 0)) }, invalid},
		{"Semaphore.AcquireN, negative", func() error { return errOf(s.AcquireN(ctx, -1)) }, invalid},
		{"Semaphore.AcquireN, more than the maximum", func() error { return errOf(s.AcquireN(ctx, 3)) }, invalid},
		{"Semaphore.AcquireNTimeout, 0 leases", func() error { return errOf(s.AcquireNTimeout(ctx, 0, time.Second)) }, invalid},
		{"Semaphore.Release, nil lease", func() error { return s.Release(ctx, nil) }, invalid},
		{"semaphore.Mutex.Release, nothing held", func() error { return sm.Release(ctx) }, notOwner},
		{"mutex.Revoke, bad path", func() error { return mutex.Revoke(ctx, c, "/a//b") }, invalid},
		{"rwlock.Lock.Acquire, owner not comparable", func() error {
			return errOf(rw.WriteLock().Acquire(rwlock.ContextWithOwner(ctx, []int{1})))
		}, invalid},
		{"rwlock.Lock.Release, nothing held", func() error { return rw.ReadLock().Release(ctx) }, notOwner},
		{"rwlock.Lock.Release, another owner's hold", func() error { return rw.WriteLock().Release(rwlock.ContextWithOwner(ctx, "nobody")) }, notOwner},
		{"multilock.New, no parts", func() error { return errOf(multilock.New()) }, invalid},
		{"multilock.New, nil part", func() error { return errOf(multilock.New(multilock.Mutex(m), nil)) }, invalid},
		{"multilock.NewSorted, two parts on one path", func() error {
			return errOf(multilock.NewSorted(multilock.Read(rw), multilock.Write(rw)))
		}, invalid},
		{"multilock.Lock.Acquire, owner not comparable", func() error {
			l, err := multilock.New(multilock.Mutex(m), multilock.SemaphoreMutex(sm))
			if err != nil {
				return err
			}
			return errOf(l.Acquire(mutex.ContextWithOwner(ctx, []int{1})))
		}, invalid},
	}
	cases = append(cases, atomicValueAndBarrierCalls(t, c, root)...)
	cases = append(cases, queueCalls(t, c, root)...)
	lease, err := other.Acquire(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, lease.Release(context.Background())) })
	return append(cases, badCase{"Semaphore.Release, a lease of another semaphore", func() error { return s.Release(ctx, lease) }, notOwner})
}

// clientCases are the client's calls with each bad path.
func clientCases(c *framework.Client) []badCase {
	ctx := context.Background()
	invalid := []error{framework.ErrInvalidPath}
	errOf := func(_ any, err error) error { return err }
	calls := map[string]func(p string) error{
		"Create":          func(p string) error { return errOf(c.Create(ctx, p, nil, framework.Persistent)) },
		"CreateProtected": func(p string) error { return errOf(c.CreateProtected(ctx, p, nil, framework.EphemeralSequential)) },
		"EnsurePath":      func(p string) error { return c.EnsurePath(ctx, p) },
		"Get":             func(p string) error { _, _, err := c.Get(ctx, p); return err },
		"Set":             func(p string) error { return errOf(c.Set(ctx, p, nil, -1)) },
		"Delete":          func(p string) error { return c.Delete(ctx, p, -1) },
		"Exists":          func(p string) error { _, _, err := c.Exists(ctx, p); return err },
		"Children":        func(p string) error { _, _, err := c.Children(ctx, p); return err },
		"Multi":           func(p string) error { return errOf(c.Multi(ctx, framework.CreateOp(p, nil, framework.Persistent))) },
		"DeleteInBackground": func(p string) error {
			return errOf(c.DeleteInBackground(p))
		},
	}
	var cases []badCase
	for name, call := range calls {
		for what, p := range badPaths {
			if name == "CreateProtected" && (what == "trailing slash" || what == "dot") {
				// Valid for a protected create, whose node is named
				// parent/_c_<uuid>-<base><sequence>: "/locks/" and "/locks/."
				// give /locks/_c_<uuid>-<seq> and /locks/_c_<uuid>-.<seq>.
				continue
			}
			cases = append(cases, badCase{"Client." + name + ", " + what + " path", func() error { return call(p) }, invalid})
		}
	}
	return cases
}

// Every exported constructor and method, given bad input, fails with an
// error errors.Is-able against the shared sentinel, and the server holds no
// node it did not hold before.
func TestBadInput_EveryCallRefusesWithATypedError(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	ctx := zktest.Context(t)
	root := zktest.UniquePath(t)
	count, err := sharedcount.New(c, root+"/count", 2)
	require.NoError(t, err)
	_, err = count.Get(ctx) // the count node exists before the snapshot
	require.NoError(t, err)
	cases := append(constructorCases(c, count), methodCases(t, c, root)...)
	cases = append(cases, clientCases(c)...)
	before := tree(t, c, "/")

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			require.Error(t, err)
			assert.True(t, isAny(err, tc.want), "%v is none of %v", err, tc.want)
		})
	}
	assert.Subset(t, before, tree(t, c, "/"), "no node was created (empty containers may be reaped meanwhile)")
}

// An error about a bad path quotes it, so that control characters of the
// caller's input (a newline, a NUL) never reach a log line raw.
func TestBadInput_ErrorsQuoteTheBadPath(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	ctx := zktest.Context(t)
	for _, p := range []string{"/locks/a\x00b", "/locks/a\nlevel=ERROR msg=forged"} {
		_, _, err := c.Get(ctx, p)
		require.ErrorIs(t, err, framework.ErrInvalidPath)
		assert.NotContains(t, err.Error(), "\x00")
		assert.NotContains(t, err.Error(), "\n")
		_, err = mutex.New(c, p)
		require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
		assert.NotContains(t, err.Error(), "\n")
	}
}

// tree returns every path under path (path included), for before and after
// comparisons of the whole server.
func tree(t *testing.T, c *framework.Client, path string) []string {
	t.Helper()
	nodes, err := nodesUnder(c, path)
	require.NoError(t, err)
	return nodes
}

func isAny(err error, targets []error) bool {
	for _, target := range targets {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// atomicValueAndBarrierCalls are calls of the atomic values and the
// barriers with a value that has no opposite, and a member that leaves
// twice.
func atomicValueAndBarrierCalls(t *testing.T, c *framework.Client, root string) []badCase {
	ctx := zktest.Context(t)
	errOf := func(_ any, err error) error { return err }
	l, err := atomicvalue.NewLong(c, root+"/long")
	require.NoError(t, err)
	n, err := atomicvalue.NewInt(c, root+"/int")
	require.NoError(t, err)
	d, err := barrier.NewDouble(c, root+"/double", 1)
	require.NoError(t, err)
	m, err := d.Enter(ctx)
	require.NoError(t, err)
	require.NoError(t, m.Leave(ctx))
	return []badCase{
		{"atomicvalue.Long.Subtract, the smallest int64", func() error { return errOf(l.Subtract(ctx, math.MinInt64)) },
			[]error{zkrecipes.ErrInvalidArgument}},
		{"atomicvalue.Int.Subtract, the smallest int32", func() error { return errOf(n.Subtract(ctx, math.MinInt32)) },
			[]error{zkrecipes.ErrInvalidArgument}},
		{"barrier.Member.Leave, twice", func() error { return m.Leave(ctx) }, []error{zkrecipes.ErrReleased}},
	}
}

// A value node whose bytes are not Curator's format for it (a Long's 8, an
// Int's 4), and an update whose result does not fit the value's type, fail
// with an errors.Is-able error, and the node is left as it was: same
// bytes, same version.
func TestBadInput_ValueNodesNotInCuratorsFormatAreLeftAsTheyAre(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	ctx := zktest.Context(t)
	root := zktest.UniquePath(t)
	long8 := []byte{0, 0, 0, 0, 0, 0, 0, 5}
	for _, tc := range []struct {
		name string
		data []byte
		call func(path string) error
		want error
	}{
		{"Long.Get, 3 bytes", []byte{1, 2, 3}, func(p string) error {
			return errOfLong(c, p, func(l *atomicvalue.Long) error { _, err := l.Get(ctx); return err })
		}, atomicvalue.ErrMalformedValue},
		{"Long.Increment, text", []byte("12345678x"), func(p string) error {
			return errOfLong(c, p, func(l *atomicvalue.Long) error { _, err := l.Increment(ctx); return err })
		}, atomicvalue.ErrMalformedValue},
		{"Long.TrySet, an Int's 4 bytes", []byte{0, 0, 0, 7}, func(p string) error {
			return errOfLong(c, p, func(l *atomicvalue.Long) error { _, err := l.TrySet(ctx, 1); return err })
		}, atomicvalue.ErrMalformedValue},
		{"Long.CompareAndSet, 9 bytes", make([]byte, 9), func(p string) error {
			return errOfLong(c, p, func(l *atomicvalue.Long) error { _, err := l.CompareAndSet(ctx, 0, 1); return err })
		}, atomicvalue.ErrMalformedValue},
		{"Int.Add, a Long's 8 bytes", long8, func(p string) error {
			n, err := atomicvalue.NewInt(c, p)
			if err != nil {
				return err
			}
			_, err = n.Add(ctx, 1)
			return err
		}, atomicvalue.ErrMalformedValue},
		{"CachedLong.Next, 2 bytes", []byte{0, 1}, func(p string) error {
			cl, err := atomicvalue.NewCachedLong(c, p, 10)
			if err != nil {
				return err
			}
			_, err = cl.Next(ctx)
			return err
		}, atomicvalue.ErrMalformedValue},
		{"Long.Increment, the largest int64", []byte{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, func(p string) error {
			return errOfLong(c, p, func(l *atomicvalue.Long) error { _, err := l.Increment(ctx); return err })
		}, atomicvalue.ErrOverflow},
		{"Long.Decrement, the smallest int64", []byte{0x80, 0, 0, 0, 0, 0, 0, 0}, func(p string) error {
			return errOfLong(c, p, func(l *atomicvalue.Long) error { _, err := l.Decrement(ctx); return err })
		}, atomicvalue.ErrOverflow},
		{"Int.Add, past the largest int32", []byte{0x7f, 0xff, 0xff, 0xf0}, func(p string) error {
			n, err := atomicvalue.NewInt(c, p)
			if err != nil {
				return err
			}
			_, err = n.Add(ctx, 0x10)
			return err
		}, atomicvalue.ErrOverflow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := root + "/" + strings.NewReplacer(" ", "-", ",", "", "'", "").Replace(tc.name)
			_, err := c.Create(ctx, path, tc.data, framework.Persistent, framework.WithParents())
			require.NoError(t, err)
			require.ErrorIs(t, tc.call(path), tc.want)
			data, stat, err := c.Get(ctx, path)
			require.NoError(t, err)
			assert.Equal(t, tc.data, data, "the node's bytes")
			assert.Zero(t, stat.Version, "nothing written")
		})
	}
}

// errOfLong runs call on a Long at path.
func errOfLong(c *framework.Client, path string, call func(*atomicvalue.Long) error) error {
	l, err := atomicvalue.NewLong(c, path)
	if err != nil {
		return err
	}
	return call(l)
}

// queueCalls are the consumers' constructors with a nil function and bad
// counts and options, and calls of the queues with a priority, a time or
// an id that names no item, no item, an item too large for one node or one
// the codec refuses, and a negative wait. None reaches the server.
func queueCalls(t *testing.T, c *framework.Client, root string) []badCase {
	ctx := zktest.Context(t)
	invalid := []error{zkrecipes.ErrInvalidArgument}
	errOf := func(_ any, err error) error { return err }
	q, err := queue.New(c, root+"/queue", queue.StringCodec{})
	require.NoError(t, err)
	pq, err := queue.NewPriorityQueue(c, root+"/priority", queue.StringCodec{})
	require.NoError(t, err)
	dq, err := queue.NewDelayQueue(c, root+"/delay", queue.StringCodec{})
	require.NoError(t, err)
	iq, err := queue.NewIDQueue(c, root+"/ids", queue.StringCodec{})
	require.NoError(t, err)
	s, err := queue.NewSimple(c, root+"/simple")
	require.NoError(t, err)
	refusing, err := queue.New(c, root+"/refusing", refusingCodec{})
	require.NoError(t, err)
	huge := strings.Repeat("x", framework.MaxRequestSize)
	fn := func(context.Context, string) error { return nil }
	consumer := func(opts ...queue.Option) error { return errOf(q.NewConsumer(fn, opts...)) }
	return []badCase{
		{"queue.Queue.NewConsumer, nil function", func() error { return errOf(q.NewConsumer(nil)) }, invalid},
		{"queue.Queue.NewTxConsumer, nil function", func() error { return errOf(q.NewTxConsumer(nil)) }, invalid},
		{"queue.Queue.NewConsumer, nil option", func() error { return consumer(nil) }, invalid},
		{"queue.Queue.NewConsumer, concurrency 0", func() error { return consumer(queue.WithConcurrency(0)) }, invalid},
		{"queue.Queue.NewConsumer, negative concurrency", func() error { return consumer(queue.WithConcurrency(-2)) }, invalid},
		{"queue.Queue.NewConsumer, bad error mode", func() error { return consumer(queue.WithErrorMode(queue.ErrorMode(7))) }, invalid},
		{"queue.Queue.NewConsumer, negative items before refresh", func() error {
			return consumer(queue.WithMinItemsBeforeRefresh(-1))
		}, invalid},
		{"queue.Queue.PutMulti, no item", func() error { return q.PutMulti(ctx, nil) }, invalid},
		{"queue.Queue.Put, an item over the request limit", func() error { return q.Put(ctx, huge) }, invalid},
		{"queue.Queue.PutMulti, items over the request limit", func() error { return q.PutMulti(ctx, []string{huge[:len(huge)/2], huge[:len(huge)/2]}) }, invalid},
		{"queue.Queue.Put, an item the codec refuses", func() error { return refusing.Put(ctx, 7) }, invalid},
		{"queue.PriorityQueue.Put, above a Java int", func() error { return pq.Put(ctx, "a", math.MaxInt32+1) }, invalid},
		{"queue.PriorityQueue.PutMulti, below a Java int", func() error { return pq.PutMulti(ctx, []string{"a"}, math.MinInt32-1) }, invalid},
		{"queue.DelayQueue.Put, the epoch", func() error { return dq.Put(ctx, "a", time.UnixMilli(0)) }, invalid},
		{"queue.DelayQueue.Put, before the epoch", func() error { return dq.Put(ctx, "a", time.Date(1969, 7, 20, 0, 0, 0, 0, time.UTC)) }, invalid},
		{"queue.DelayQueue.PutMulti, the zero time", func() error { return dq.PutMulti(ctx, []string{"a"}, time.Time{}) }, invalid},
		{"queue.IDQueue.Put, empty id", func() error { return iq.Put(ctx, "a", "") }, invalid},
		{"queue.IDQueue.Put, an id with NUL", func() error { return iq.Put(ctx, "a", "a\x00b") }, invalid},
		{"queue.IDQueue.Remove, empty id", func() error { return errOf(iq.Remove(ctx, "")) }, invalid},
		{"queue.Simple.Offer, data over the request limit", func() error { return s.Offer(ctx, []byte(huge)) }, invalid},
		{"queue.Simple.Poll, negative wait", func() error { return errOf(s.Poll(ctx, -time.Second)) }, invalid},
	}
}

// refusingCodec is a queue's codec that refuses every item.
type refusingCodec struct{}

func (refusingCodec) Encode(int) ([]byte, error) { return nil, errors.New("refused") }
func (refusingCodec) Decode([]byte) (int, error) { return 0, errors.New("refused") }

// A queue node whose bytes are not Curator's format (or hold an item the
// codec cannot read) is passed over by a consumer of every mode: its
// function never sees it, and the node is left in place as it was, same
// bytes, same version, while the next item is taken.
func TestBadInput_QueueNodesNotInCuratorsFormatAreLeftInPlace(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	ctx := zktest.Context(t)
	root := zktest.UniquePath(t)
	version := []byte{0, 1, 0, 1}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"too short for the version", []byte{0, 1}},
		{"another version", []byte{0, 1, 0, 2, 2}},
		{"an unknown marker", cat(version, []byte{7})},
		{"a negative length", cat(version, []byte{1, 0xff, 0xff, 0xff, 0xfe, 'a', 2})},
		{"a length past the end", cat(version, []byte{1, 0, 0, 0, 9, 'a', 2})},
		{"no end marker", cat(version, []byte{1, 0, 0, 0, 1, '7'})},
		{"an item the codec cannot read", queue.Encode([][]byte{[]byte("seven")})},
	} {
		for _, mode := range []string{"at most once", "lock-safe", "transactional"} {
			t.Run(tc.name+", "+mode, func(t *testing.T) {
				dir := root + "/" + strings.NewReplacer(" ", "-", ",", "").Replace(tc.name+" "+mode)
				_, err := c.Create(ctx, dir+"/queue-0000000000", tc.data, framework.Persistent, framework.WithParents())
				require.NoError(t, err)
				var opts []queue.Option
				if mode != "at most once" {
					opts = append(opts, queue.WithLockPath(dir+"-locks"))
				}
				q, err := queue.New(c, dir, intCodec{}, opts...)
				require.NoError(t, err)
				require.NoError(t, q.Put(ctx, 8))
				require.NoError(t, q.Close(ctx), "the producer's marker goes")
				got := takeOne(t, q, mode == "transactional")
				assert.Equal(t, 8, got, "the good item, and nothing before it")
				data, stat, err := c.Get(ctx, dir+"/queue-0000000000")
				require.NoError(t, err)
				assert.Equal(t, len(tc.data), len(data))
				assert.Equal(t, string(tc.data), string(data), "the node's bytes")
				assert.Zero(t, stat.Version, "nothing written")
				assert.Equal(t, []string{"queue-0000000000"}, zktest.Children(t, c, dir), "only the malformed node is left")
				if mode != "at most once" {
					assert.Empty(t, zktest.Children(t, c, dir+"-locks"), "no lock node is left")
				}
			})
		}
	}
}

// takeOne starts a consumer of q (transactional, or not), returns the
// first item its function is called with, and closes it.
func takeOne(t *testing.T, q *queue.Queue[int], tx bool) int {
	got := make(chan int, 8)
	var cn *queue.Consumer[int]
	var err error
	if tx {
		cn, err = q.NewTxConsumer(func(_ context.Context, n int) ([]framework.Op, error) { got <- n; return nil, nil })
	} else {
		cn, err = q.NewConsumer(func(_ context.Context, n int) error { got <- n; return nil })
	}
	require.NoError(t, err)
	require.NoError(t, cn.Start(zktest.Context(t)))
	n := <-got
	require.NoError(t, cn.Close(zktest.Context(t)))
	return n
}

// intCodec is a queue's codec of integers in decimal.
type intCodec struct{}

func (intCodec) Encode(n int) ([]byte, error) { return []byte(strconv.Itoa(n)), nil }
func (intCodec) Decode(b []byte) (int, error) { return strconv.Atoi(string(b)) }
