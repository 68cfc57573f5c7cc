package multilock_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/multilock"
)

// rounds is how many times each process takes the multi-lock.
const rounds = 15

// contend has each of mls taken rounds times, each by a goroutine of its
// own, and checks that no two hold at once, and that the first part's
// fencing token, read while held, grows from one holder to the next. A deadlock shows as an
// acquire that ends with its deadline: each acquire may wait long enough
// for every other process to finish, and not longer.
func contend(t *testing.T, mls ...*multilock.Lock) {
	t.Helper()
	var inside, overlaps atomic.Int32
	var mu sync.Mutex // guards last
	var last int64    // the first part's token of the latest holder
	var wg sync.WaitGroup
	for p, ml := range mls {
		wg.Go(func() { // ends after its rounds, or at its first failed acquire
			ctx := testContext(t)
			for round := range rounds {
				h, err := ml.AcquireTimeout(ctx, 30*time.Second)
				if !assert.NoError(t, err, "process %d, round %d", p, round) {
					return
				}
				if inside.Add(1) > 1 {
					overlaps.Add(1)
				}
				tokens, err := h.FencingTokens(ctx) // a round trip while held
				if assert.NoError(t, err) {
					mu.Lock()
					assert.Greater(t, tokens[0], last, "the first part's token went back")
					last = tokens[0]
					mu.Unlock()
				}
				inside.Add(-1)
				assert.NoError(t, h.Release(ctx))
			}
		})
	}
	wg.Wait()
	assert.Zero(t, overlaps.Load(), "two processes held the multi-lock at once")
}

func TestMultiLock_ProcessesTakingTheSameOrderNeverDeadlock(t *testing.T) {
	base := zktest.UniquePath(t)
	first := connect(t, zktest.Servers(t))
	second := connect(t, zktest.Servers(t))
	contend(t, newLocks(t, first, base).multi(t), newLocks(t, second, base).multi(t), newLocks(t, second, base).multi(t))
	assert.Empty(t, nodes(t, first, base))
}

func TestNewSorted_ReversedOrdersNeverDeadlock(t *testing.T) {
	base := zktest.UniquePath(t)
	first := connect(t, zktest.Servers(t))
	second := connect(t, zktest.Servers(t))
	given := newLocks(t, first, base).parts()
	reversed := newLocks(t, second, base).parts()
	forward, err := multilock.NewSorted(given...)
	require.NoError(t, err)
	backward, err := multilock.NewSorted(reversed[2], reversed[1], reversed[0])
	require.NoError(t, err)
	require.Equal(t, forward.Paths(), backward.Paths())
	contend(t, forward, backward)
	assert.Empty(t, nodes(t, first, base))
}
