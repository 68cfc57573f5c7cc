package reliability_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
)

// A closed client refuses every call of every recipe with ErrClosed, and
// nothing reaches the server.
func TestBadInput_CallsAfterCloseFail(t *testing.T) {
	servers := zktest.Servers(t)
	observer := zktest.Connect(t, servers)
	c := zktest.Connect(t, servers)
	ctx := zktest.Context(t)
	root := zktest.UniquePath(t)
	m, err := mutex.New(c, root+"/mutex")
	require.NoError(t, err)
	s, err := semaphore.New(c, root+"/semaphore", 2)
	require.NoError(t, err)
	sm, err := semaphore.NewMutex(c, root+"/semaphore-mutex")
	require.NoError(t, err)
	count, err := sharedcount.New(c, root+"/count", 1)
	require.NoError(t, err)
	h, err := m.Acquire(ctx)
	require.NoError(t, err)
	lease, err := s.Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, c.Close())

	closed := []error{framework.ErrClosed, zkrecipes.ErrLost}
	errOf := func(_ any, err error) error { return err }
	for _, tc := range []badCase{
		{"Mutex.Acquire", func() error { return errOf(m.Acquire(ctx)) }, []error{framework.ErrClosed}},
		{"Mutex.TryAcquire", func() error { return errOf(m.TryAcquire(ctx)) }, []error{framework.ErrClosed}},
		{"Mutex.AcquireTimeout", func() error { return errOf(m.AcquireTimeout(ctx, time.Second)) }, []error{framework.ErrClosed}},
		{"Hold.Release of a hold from before the close", func() error { return h.Release(ctx) }, closed},
		{"Semaphore.Acquire", func() error { return errOf(s.Acquire(ctx)) }, []error{framework.ErrClosed}},
		{"Semaphore.AcquireNTimeout", func() error { return errOf(s.AcquireNTimeout(ctx, 1, time.Second)) }, []error{framework.ErrClosed}},
		{"Lease.Release of a lease from before the close", func() error { return lease.Release(ctx) }, closed},
		{"semaphore.Mutex.Acquire", func() error { return errOf(sm.Acquire(ctx)) }, []error{framework.ErrClosed}},
		{"SharedCount.Get", func() error { return errOf(count.Get(ctx)) }, []error{framework.ErrClosed}},
		{"SharedCount.Set", func() error { return count.Set(ctx, 3) }, []error{framework.ErrClosed}},
		{"SharedCount.TrySet", func() error { return errOf(count.TrySet(ctx, 3, 0)) }, []error{framework.ErrClosed}},
		{"SharedCount.Watch", func() error { return errOf(count.Watch(ctx)) }, []error{framework.ErrClosed}},
		{"mutex.Revoke", func() error { return mutex.Revoke(ctx, c, h.Node()) }, []error{framework.ErrClosed}},
		{"Client.Create", func() error { return errOf(c.Create(ctx, root+"/x", nil, framework.Persistent)) }, []error{framework.ErrClosed}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { done <- tc.call() }() // ends when the call returns
			select {
			case err := <-done:
				require.Error(t, err)
				assert.True(t, isAny(err, tc.want), "%v is none of %v", err, tc.want)
			case <-time.After(10 * time.Second):
				t.Fatal("the call after Close did not return")
			}
		})
	}
	assert.Empty(t, ephemerals(t, observer, root), "the closed session's nodes are gone")
	assert.NotContains(t, tree(t, observer, "/"), root+"/count", "no count node was created")
}

// A second release of the same hold or lease changes nothing and says so
// (ErrReleased; ErrNotOwner before the lead's change of the mutex), or is
// harmless (nil) for a lease, as DESIGN section 5 allows.
func TestBadInput_SecondReleaseChangesNothing(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	ctx := zktest.Context(t)
	root := zktest.UniquePath(t)
	m, err := mutex.New(c, root+"/mutex")
	require.NoError(t, err)
	s, err := semaphore.New(c, root+"/semaphore", 2)
	require.NoError(t, err)
	sm, err := semaphore.NewMutex(c, root+"/semaphore-mutex")
	require.NoError(t, err)

	h, err := m.Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, h.Release(ctx))
	next, err := m.Acquire(mutex.ContextWithOwner(ctx, "next"))
	require.NoError(t, err)
	err = h.Release(ctx)
	assert.True(t, isAny(err, []error{zkrecipes.ErrReleased, zkrecipes.ErrNotOwner}), "mutex: %v", err)
	assert.NoError(t, next.Err(), "the next holder keeps the lock")

	lease, err := s.Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, lease.Release(ctx))
	if err := lease.Release(ctx); err != nil {
		assert.ErrorIs(t, err, zkrecipes.ErrReleased, "lease")
	}
	if err := s.Release(ctx, lease); err != nil {
		assert.ErrorIs(t, err, zkrecipes.ErrReleased, "semaphore")
	}

	_, err = sm.Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, sm.Release(ctx))
	err = sm.Release(ctx)
	assert.True(t, isAny(err, []error{zkrecipes.ErrReleased, zkrecipes.ErrNotOwner}), "semaphore mutex: %v", err)

	require.NoError(t, next.Release(ctx))
	assert.Empty(t, ephemerals(t, c, root), "nothing is held")
}
