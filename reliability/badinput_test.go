package reliability_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/multilock"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/mutex/lockdriver"
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
	return append(cases,
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
		badCase{"leases.New, nil client", func() error {
			return errOf(leases.New(nil, framework.Node{Path: "/ok", Session: c.Session()}, nil))
		}, invalid},
		badCase{"leases.New, no path", func() error { return errOf(leases.New(c, framework.Node{Session: c.Session()}, nil)) }, invalid},
		badCase{"leases.New, no session", func() error { return errOf(leases.New(c, framework.Node{Path: "/ok"}, nil)) }, invalid},
		badCase{"leases.New, zero maximum hold", func() error {
			return errOf(leases.New(c, framework.Node{Path: "/ok", Session: c.Session()}, nil, leases.WithMaxHold(0)))
		}, invalid},
		badCase{"leases.New, bad error policy", func() error {
			return errOf(leases.New(c, framework.Node{Path: "/ok", Session: c.Session()}, nil, leases.WithErrorPolicy(policy)))
		}, invalid},
		badCase{"mutex.Revoke, nil client", func() error { return mutex.Revoke(context.Background(), nil, "/ok") }, invalid},
		badCase{"rwlock.New, nil option", func() error { return errOf(rwlock.New(c, "/ok", nil)) }, invalid},
		badCase{"rwlock.New, bad error policy", func() error { return errOf(rwlock.New(c, "/ok", rwlock.WithErrorPolicy(policy))) }, invalid},
		badCase{"mutex.New, nil logger", func() error { return errOf(mutex.New(c, "/ok", mutex.WithLogger(nil))) }, invalid},
		badCase{"rwlock.New, nil logger", func() error { return errOf(rwlock.New(c, "/ok", rwlock.WithLogger(nil))) }, invalid},
		badCase{"semaphore.New, nil logger", func() error { return errOf(semaphore.New(c, "/ok", 1, semaphore.WithLogger(nil))) }, invalid},
		badCase{"sharedcount.New, nil logger", func() error { return errOf(sharedcount.New(c, "/ok", 1, sharedcount.WithLogger(nil))) }, invalid},
		badCase{"leases.New, nil logger", func() error {
			return errOf(leases.New(c, framework.Node{Path: "/ok", Session: c.Session()}, nil, leases.WithLogger(nil)))
		}, invalid},
	)
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
			return errOf(m.Acquire(mutex.WithOwner(ctx, &request{})))
		}, invalid},
		{"Mutex.Acquire, owner not comparable", func() error {
			return errOf(m.Acquire(mutex.WithOwner(ctx, []int{1})))
		}, invalid},
		{"Mutex.Release, nothing held", func() error { return m.Release(ctx) }, notOwner},
		{"Mutex.Release, another owner's hold", func() error { return m.Release(mutex.WithOwner(ctx, "nobody")) }, notOwner},
		{"Semaphore.AcquireN, 0 leases", func() error { return errOf(s.AcquireN(ctx, 0)) }, invalid},
		{"Semaphore.AcquireN, negative", func() error { return errOf(s.AcquireN(ctx, -1)) }, invalid},
		{"Semaphore.AcquireN, more than the maximum", func() error { return errOf(s.AcquireN(ctx, 3)) }, invalid},
		{"Semaphore.AcquireNTimeout, 0 leases", func() error { return errOf(s.AcquireNTimeout(ctx, 0, time.Second)) }, invalid},
		{"Semaphore.Release, nil lease", func() error { return s.Release(ctx, nil) }, invalid},
		{"semaphore.Mutex.Release, nothing held", func() error { return sm.Release(ctx) }, notOwner},
		{"mutex.Revoke, bad path", func() error { return mutex.Revoke(ctx, c, "/a//b") }, invalid},
		{"rwlock.Lock.Acquire, owner not comparable", func() error {
			return errOf(rw.WriteLock().Acquire(rwlock.WithOwner(ctx, []int{1})))
		}, invalid},
		{"rwlock.Lock.Release, nothing held", func() error { return rw.ReadLock().Release(ctx) }, notOwner},
		{"rwlock.Lock.Release, another owner's hold", func() error { return rw.WriteLock().Release(rwlock.WithOwner(ctx, "nobody")) }, notOwner},
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
			return errOf(l.Acquire(mutex.WithOwner(ctx, []int{1})))
		}, invalid},
	}
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
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	children, _, err := c.Children(ctx, path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	require.NoError(t, err)
	out := []string{path}
	for _, name := range children {
		if path == "/" && name == "zookeeper" {
			continue
		}
		out = append(out, tree(t, c, zkpath.Join(path, name))...)
	}
	return out
}

func isAny(err error, targets []error) bool {
	for _, target := range targets {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}
