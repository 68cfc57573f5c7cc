package queue_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

func TestQueue_ConsumerTakesEveryItemInOrderAndLeavesNothing(t *testing.T) {
	for _, lock := range []bool{false, true} {
		t.Run(fmt.Sprintf("lock=%v", lock), func(t *testing.T) {
			c := connect(t, zktest.Servers(t))
			ctx := testContext(t)
			path := zktest.UniquePath(t)
			var opts []queue.Option
			if lock {
				opts = append(opts, queue.WithLockPath(path+"-locks"))
			}
			q := newQueue(t, c, path, opts...)
			var want []string
			for i := range 20 {
				item := fmt.Sprintf("item-%02d", i)
				want = append(want, item)
				require.NoError(t, q.Put(ctx, item))
			}
			require.NoError(t, q.PutMulti(ctx, []string{"multi-a", "multi-b"}))
			want = append(want, "multi-a", "multi-b")
			r := &recorder{}
			cn, err := q.NewConsumer(r.consume)
			require.NoError(t, err)
			start(t, cn)
			assert.Equal(t, want, r.waitFor(t, len(want)))
			assert.Eventually(t, func() bool { return len(items(t, c, path)) == 0 }, 10*time.Second, 10*time.Millisecond)
			if lock {
				require.NoError(t, q.Close(ctx))
				assert.Empty(t, children(t, c, path+"-locks"), "no lock node nor marker left")
			}
		})
	}
}

// A queue closed from two goroutines at once deletes its producer's
// marker once, and neither close fails.
func TestQueue_CloseFromTwoGoroutinesAtOnce(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	q := newQueue(t, c, path, queue.WithLockPath(path+"-locks"))
	require.NoError(t, q.Put(ctx, "x")) // makes the marker
	require.Len(t, children(t, c, path+"-locks"), 1)
	closed := make(chan error, 2)
	for range 2 {
		go func() { closed <- q.Close(ctx) }() // ends when the close returns
	}
	assert.NoError(t, <-closed)
	assert.NoError(t, <-closed)
	assert.Empty(t, children(t, c, path+"-locks"), "the marker is deleted")
}

// A close whose ctx has ended, with no put under way, still deletes the
// producer's marker, as every giving back does (recipe.FinishContext).
func TestQueue_CloseWithItsCtxEndedStillDeletesTheMarker(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	ended, cancel := context.WithCancel(ctx)
	cancel()
	for i := range 10 {
		path := fmt.Sprintf("%s/%d", zktest.UniquePath(t), i)
		q := newQueue(t, c, path, queue.WithLockPath(path+"-locks"))
		require.NoError(t, q.Put(ctx, "x")) // makes the marker
		require.Len(t, children(t, c, path+"-locks"), 1)
		assert.NoError(t, q.Close(ended))
		assert.Empty(t, children(t, c, path+"-locks"), "the marker is deleted")
	}
}
