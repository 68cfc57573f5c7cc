package queue

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// A take that the consumer's loop starts once the consumer is closing (its
// slot came free as Close ended its ctx) takes nothing, in every mode: the
// function is not called and the item stays in the queue for the next
// consumer. The loop cannot be stopped between its check and its start on
// purpose, so the take is called here as the loop would call it then.
func TestConsumer_TakeStartedAfterCloseLeavesTheItem(t *testing.T) {
	for _, mode := range []struct {
		name     string
		lock, tx bool
	}{{"at most once", false, false}, {"lock-safe", true, false}, {"transactional", false, true}, {"transactional, locked", true, true}} {
		t.Run(mode.name, func(t *testing.T) {
			c := zktest.Connect(t, zktest.Servers(t))
			ctx := zktest.Context(t)
			path := zktest.UniquePath(t)
			var opts []Option
			if mode.lock {
				opts = append(opts, WithLockPath(path+"-locks"))
			}
			q, err := New(c, path, StringCodec{}, opts...)
			require.NoError(t, err)
			defer func() { _ = q.Close(context.Background()) }()
			require.NoError(t, q.Put(ctx, "left"))
			names, _, err := c.Children(ctx, path)
			require.NoError(t, err)
			require.Len(t, names, 1)
			var calls atomic.Int32
			var cn *Consumer[string]
			if mode.tx {
				cn, err = q.NewTxConsumer(func(context.Context, string) ([]framework.Op, error) { calls.Add(1); return nil, nil })
			} else {
				cn, err = q.NewConsumer(func(context.Context, string) error { calls.Add(1); return nil })
			}
			require.NoError(t, err)
			closed, cancel := context.WithCancel(ctx)
			cancel() // Close has ended the loop's ctx
			o := cn.take(closed, names[0])
			assert.False(t, o.took, "nothing taken")
			assert.Zero(t, calls.Load(), "the function is not called")
			left, _, err := c.Children(ctx, path)
			require.NoError(t, err)
			assert.Equal(t, names, left, "the item stays in the queue")
		})
	}
}
