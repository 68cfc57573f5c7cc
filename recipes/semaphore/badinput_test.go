package semaphore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
)

func TestNew_RejectsBadInputWithoutARequest(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	count := newCount(t, c, "/count", 1)
	before := requests()
	tests := []struct {
		name string
		new  func() (any, error)
	}{
		{"maximum 0", func() (any, error) { return semaphore.New(c, "/s", 0) }},
		{"negative maximum", func() (any, error) { return semaphore.New(c, "/s", -3) }},
		{"nil client", func() (any, error) { return semaphore.New(nil, "/s", 1) }},
		{"relative path", func() (any, error) { return semaphore.New(c, "s", 1) }},
		{"root", func() (any, error) { return semaphore.New(c, "/", 1) }},
		{"nil option", func() (any, error) { return semaphore.New(c, "/s", 1, nil) }},
		{"bad error policy", func() (any, error) {
			return semaphore.New(c, "/s", 1, semaphore.WithErrorPolicy(framework.ErrorPolicy(9)))
		}},
		{"zero maximum hold", func() (any, error) { return semaphore.New(c, "/s", 1, semaphore.WithMaxHold(0)) }},
		{"nil count", func() (any, error) { return semaphore.NewCounted(c, "/s", nil) }},
		{"counted, nil client", func() (any, error) { return semaphore.NewCounted(nil, "/s", count) }},
		{"mutex, bad path", func() (any, error) { return semaphore.NewMutex(c, "/s/") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.new()
			require.ErrorIs(t, err, semaphore.ErrInvalidArgument)
		})
	}
	assert.Equal(t, before, requests(), "nothing reached the server")
}

func TestAcquire_RejectsBadCountsWithoutARequest(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	ctx := testContext(t)
	s := newSemaphore(t, c, zktest.UniquePath(t), 3)
	before := requests()

	for _, n := range []int{0, -1, 4} {
		_, err := s.AcquireN(ctx, n)
		require.ErrorIs(t, err, semaphore.ErrInvalidArgument, "n=%d", n)
		_, err = s.AcquireNTimeout(ctx, n, time.Second)
		require.ErrorIs(t, err, semaphore.ErrInvalidArgument, "timed, n=%d", n)
	}
	assert.Equal(t, before, requests(), "nothing reached the server")
}

func TestRelease_RejectsALeaseOfAnotherSemaphore(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	ctx := testContext(t)
	a := newSemaphore(t, c, zktest.UniquePath(t), 1)
	b := newSemaphore(t, c, zktest.UniquePath(t), 1)
	l, err := a.Acquire(ctx)
	require.NoError(t, err)

	before := requests()
	require.ErrorIs(t, b.Release(ctx, l), semaphore.ErrNotOwner)
	require.ErrorIs(t, b.Release(ctx, nil), semaphore.ErrInvalidArgument, "a nil lease says so")
	assert.Equal(t, before, requests(), "nothing reached the server")
	assert.NoError(t, l.Err(), "the lease is still held")

	require.NoError(t, a.Release(ctx, l))
	assert.Empty(t, children(t, c, a.Path()+"/leases"))
}

func TestAcquire_ClosedClientFailsWithoutARequest(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSemaphore(t, c, path, 2)
	counted, err := semaphore.NewCounted(c, path, newCount(t, c, path+"-count", 2))
	require.NoError(t, err)
	m, err := semaphore.NewMutex(c, path)
	require.NoError(t, err)
	require.NoError(t, c.Close())

	before := requests()
	_, err = s.Acquire(ctx)
	require.ErrorIs(t, err, framework.ErrClosed)
	_, err = s.AcquireN(ctx, 2)
	require.ErrorIs(t, err, framework.ErrClosed)
	_, err = counted.Acquire(ctx)
	require.ErrorIs(t, err, framework.ErrClosed)
	_, err = m.AcquireTimeout(ctx, time.Second)
	require.ErrorIs(t, err, framework.ErrClosed)
	_, err = s.Participants(ctx)
	require.ErrorIs(t, err, framework.ErrClosed)
	assert.Equal(t, before, requests(), "nothing reached the server")
}

func TestCounted_MalformedOrNegativeCountFailsAndWritesNothing(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"three bytes", []byte{0, 0, 1}, semaphore.ErrMalformedCount},
		{"eight bytes", []byte{0, 0, 0, 0, 0, 0, 0, 1}, semaphore.ErrMalformedCount},
		{"empty", nil, semaphore.ErrMalformedCount},
		{"negative", sharedcount.Encode(-2), semaphore.ErrInvalidMaximum},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := zktest.UniquePath(t)
			_, err := c.Create(ctx, path+"-count", tt.data, framework.Persistent, framework.WithParents())
			require.NoError(t, err)
			s, err := semaphore.NewCounted(c, path, newCount(t, c, path+"-count", 5))
			require.NoError(t, err)

			_, err = s.Acquire(ctx)
			require.ErrorIs(t, err, tt.want)
			_, err = s.AcquireN(ctx, 2)
			require.ErrorIs(t, err, tt.want)
			ok, _, err := c.Exists(ctx, path)
			require.NoError(t, err)
			assert.False(t, ok, "nothing written under the semaphore's path")
			data, _, err := c.Get(ctx, path+"-count")
			require.NoError(t, err)
			assert.Equal(t, tt.data, data, "the count node is left as it was")
		})
	}
}

// A semaphore mutex released with nothing held says so, and changes
// nothing.
func TestMutex_ReleaseWithNothingHeldIsNotOwner(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	m, err := semaphore.NewMutex(c, zktest.UniquePath(t))
	require.NoError(t, err)
	before := requests()
	require.ErrorIs(t, m.Release(context.Background()), semaphore.ErrNotOwner)
	assert.Equal(t, before, requests())
}
