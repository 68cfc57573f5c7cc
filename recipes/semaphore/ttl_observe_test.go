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

// A TTL lease's end reaches the client's observer as a session lease's
// does: released, or expired when its holder stops renewing.
func TestTTL_ObserverHearsALeasesReleaseAndExpiry(t *testing.T) {
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

	// The guard's holds are reported too, as "semaphore.guard".
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
}
