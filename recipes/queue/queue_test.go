package queue_test

import (
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
