package semaphore_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// A TTL lease's start and end reach the client's observer as a session
// lease's do: released, or expired when its holder stops renewing. The
// guard lock, a part of the semaphore's acquire, is not reported.
func TestTTL_ObserverHearsALeasesStartReleaseAndExpiry(t *testing.T) {
	rec := &zktest.Recorder{}
	c := zktest.Connect(t, zktest.Servers(t), framework.WithObserver(rec))
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	s, err := semaphore.New(c, path, 1, semaphore.WithTTL(time.Second))
	require.NoError(t, err)

	l, err := s.Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, s.Release(ctx, l))
	l, err = s.Acquire(ctx)
	require.NoError(t, err)
	zktest.WaitClosed(t, l.Lost(), 10*time.Second, "the unrenewed lease's loss")

	leaseEnds := func() (out []framework.HoldEvent) {
		for _, h := range rec.Holds() {
			if h.Recipe == "semaphore" {
				out = append(out, h)
			}
		}
		return out
	}
	require.Eventually(t, func() bool { return len(leaseEnds()) == 2 }, 10*time.Second, 10*time.Millisecond, "%+v", rec.Holds())
	released, expired := leaseEnds()[0], leaseEnds()[1]
	assert.Equal(t, framework.CauseReleased, released.Cause)
	assert.Equal(t, framework.CauseExpired, expired.Cause)
	assert.ErrorIs(t, expired.Err, leases.ErrExpired)
	assert.Equal(t, l.Node(), expired.Node)
	assert.GreaterOrEqual(t, expired.Held, 900*time.Millisecond)

	starts := rec.HoldStarts()
	require.Len(t, starts, 2, "%+v", starts)
	assert.Equal(t, released.Node, starts[0].Node)
	assert.Equal(t, expired.Node, starts[1].Node)
	for _, h := range append(starts, rec.Holds()...) {
		assert.Equal(t, "semaphore", h.Recipe, "%+v", h)
	}
	for _, a := range rec.Acquires() {
		assert.Equal(t, "semaphore", a.Recipe, "%+v", a)
	}
}
