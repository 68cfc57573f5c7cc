package reliability_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/atomicvalue"
	"github.com/zkrecipes/zkrecipes/recipes/barrier"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

// The calls of the queues, the barriers and the atomic values in the
// library's rules for an ended ctx and a closed client: they join
// endedCalls, givingBacks and closedCases.

func newStringQueue(t *testing.T, c *framework.Client, path string, opts ...queue.Option) *queue.Queue[string] {
	t.Helper()
	q, err := queue.New(c, path, queue.StringCodec{}, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = q.Close(context.Background()) })
	return q
}

func newQueueIDs(t *testing.T, c *framework.Client, path string) *queue.IDQueue[string] {
	t.Helper()
	q, err := queue.NewIDQueue(c, path, queue.StringCodec{}, queue.WithLockPath(path+"-locks"))
	require.NoError(t, err)
	return q
}

func newSimpleQueue(t *testing.T, c *framework.Client, path string, items ...string) *queue.Simple {
	t.Helper()
	s, err := queue.NewSimple(c, path)
	require.NoError(t, err)
	for _, it := range items {
		require.NoError(t, s.Offer(zktest.Context(t), []byte(it)))
	}
	return s
}

func newPromotedLong(t *testing.T, c *framework.Client, root string) *atomicvalue.Long {
	t.Helper()
	l, err := atomicvalue.NewLong(c, root+"/long", atomicvalue.WithPromotedToLock(atomicvalue.PromotedToLock{Path: root + "/long-lock"}))
	require.NoError(t, err)
	return l
}

// queueEndedCalls are the queues' calls that send something.
func queueEndedCalls() []endedCall {
	errOf := func(_ any, err error) error { return err }
	type call = func(context.Context) error
	return []endedCall{
		{"queue.Queue.Put", func(t *testing.T, c *framework.Client, root string) call {
			q := newStringQueue(t, c, root+"/q", queue.WithLockPath(root+"/locks"))
			require.NoError(t, q.Put(zktest.Context(t), "first")) // the marker is there
			return func(ctx context.Context) error { return q.Put(ctx, "x") }
		}},
		{"queue.Queue.PutMulti, bounded", func(t *testing.T, c *framework.Client, root string) call {
			q := newStringQueue(t, c, root+"/q", queue.WithMaxItems(5))
			return func(ctx context.Context) error { return q.PutMulti(ctx, []string{"x", "y"}) }
		}},
		{"queue.PriorityQueue.Put", func(t *testing.T, c *framework.Client, root string) call {
			q, err := queue.NewPriorityQueue(c, root+"/q", queue.StringCodec{})
			require.NoError(t, err)
			return func(ctx context.Context) error { return q.Put(ctx, "x", 1) }
		}},
		{"queue.DelayQueue.Put", func(t *testing.T, c *framework.Client, root string) call {
			q, err := queue.NewDelayQueue(c, root+"/q", queue.StringCodec{})
			require.NoError(t, err)
			return func(ctx context.Context) error { return q.Put(ctx, "x", time.Now()) }
		}},
		{"queue.IDQueue.Remove", func(t *testing.T, c *framework.Client, root string) call {
			q := newQueueIDs(t, c, root+"/q")
			require.NoError(t, q.Put(zktest.Context(t), "x", "id"))
			return func(ctx context.Context) error { return errOf(q.Remove(ctx, "id")) }
		}},
		{"queue.Consumer.Start", func(t *testing.T, c *framework.Client, root string) call {
			q := newStringQueue(t, c, root+"/q")
			require.NoError(t, q.Put(zktest.Context(t), "x"))
			cn, err := q.NewConsumer(func(context.Context, string) error { return nil })
			require.NoError(t, err)
			return cn.Start
		}},
		{"queue.Simple.Offer", func(t *testing.T, c *framework.Client, root string) call {
			s := newSimpleQueue(t, c, root+"/s")
			return func(ctx context.Context) error { return s.Offer(ctx, []byte("x")) }
		}},
		{"queue.Simple.Take", func(t *testing.T, c *framework.Client, root string) call {
			s := newSimpleQueue(t, c, root+"/s", "x")
			return func(ctx context.Context) error { return errOf(s.Take(ctx)) }
		}},
		{"queue.Simple.Poll", func(t *testing.T, c *framework.Client, root string) call {
			s := newSimpleQueue(t, c, root+"/s", "x")
			return func(ctx context.Context) error { return errOf(s.Poll(ctx, 0)) }
		}},
	}
}

// barrierAtomicEndedCalls are the barriers' and the atomic values' calls
// that send something.
func barrierAtomicEndedCalls() []endedCall {
	errOf := func(_ any, err error) error { return err }
	type call = func(context.Context) error
	return []endedCall{
		{"barrier.Barrier.Set", func(t *testing.T, c *framework.Client, root string) call {
			b, err := barrier.New(c, root+"/barrier")
			require.NoError(t, err)
			return b.Set
		}},
		{"barrier.Barrier.Remove", func(t *testing.T, c *framework.Client, root string) call {
			b, err := barrier.New(c, root+"/barrier")
			require.NoError(t, err)
			require.NoError(t, b.Set(zktest.Context(t)))
			return b.Remove
		}},
		{"barrier.Double.Enter", func(t *testing.T, c *framework.Client, root string) call {
			d, err := barrier.NewDouble(c, root+"/double", 1)
			require.NoError(t, err)
			return func(ctx context.Context) error { return errOf(d.Enter(ctx)) }
		}},
		{"atomicvalue.Long.Increment, promoted", func(t *testing.T, c *framework.Client, root string) call {
			l := newPromotedLong(t, c, root)
			return func(ctx context.Context) error { return errOf(l.Increment(ctx)) }
		}},
		{"atomicvalue.Long.ForceSet", func(t *testing.T, c *framework.Client, root string) call {
			l := newPromotedLong(t, c, root)
			return func(ctx context.Context) error { return l.ForceSet(ctx, 3) }
		}},
		{"atomicvalue.Long.CompareAndSet", func(t *testing.T, c *framework.Client, root string) call {
			l := newPromotedLong(t, c, root)
			require.NoError(t, l.ForceSet(zktest.Context(t), 3))
			return func(ctx context.Context) error { return errOf(l.CompareAndSet(ctx, 3, 4)) }
		}},
		{"atomicvalue.Long.Initialize", func(t *testing.T, c *framework.Client, root string) call {
			l := newPromotedLong(t, c, root)
			return func(ctx context.Context) error { return errOf(l.Initialize(ctx, 3)) }
		}},
		{"atomicvalue.Bytes.TrySet", func(t *testing.T, c *framework.Client, root string) call {
			b, err := atomicvalue.NewBytes(c, root+"/bytes")
			require.NoError(t, err)
			return func(ctx context.Context) error { return errOf(b.TrySet(ctx, []byte("x"))) }
		}},
		{"atomicvalue.CachedLong.Next", func(t *testing.T, c *framework.Client, root string) call {
			n, err := atomicvalue.NewCachedLong(c, root+"/cached", 10)
			require.NoError(t, err)
			return func(ctx context.Context) error { return errOf(n.Next(ctx)) }
		}},
	}
}

// queueBarrierGivingBacks are the queues' and the barriers' closes and
// leaves.
func queueBarrierGivingBacks() []givingBack {
	type giveBack = func(context.Context) error
	return []givingBack{
		{"queue.Queue.Close", false, func(t *testing.T, c *framework.Client, root string) (giveBack, []string) {
			q := newStringQueue(t, c, root+"/q", queue.WithLockPath(root+"/locks"))
			require.NoError(t, q.Put(zktest.Context(t), "x")) // makes the producer's marker
			names, _, err := c.Children(zktest.Context(t), root+"/locks")
			require.NoError(t, err)
			require.Len(t, names, 1)
			return q.Close, []string{root + "/locks/" + names[0]}
		}},
		{"barrier.Member.Leave", true, func(t *testing.T, c *framework.Client, root string) (giveBack, []string) {
			d, err := barrier.NewDouble(c, root+"/double", 1)
			require.NoError(t, err)
			m, err := d.Enter(zktest.Context(t))
			require.NoError(t, err)
			return m.Leave, []string{m.Node()}
		}},
	}
}

// queueBarrierAtomicClosedCases prepares on c, open, the calls of the
// queues, barriers and atomic values that closedCases makes after its
// Close.
func queueBarrierAtomicClosedCases(t *testing.T, c *framework.Client, root string) []closedCase {
	ctx := zktest.Context(t)
	errOf := func(_ any, err error) error { return err }
	q := newStringQueue(t, c, root+"/q", queue.WithLockPath(root+"/locks"))
	ids := newQueueIDs(t, c, root+"/ids")
	s := newSimpleQueue(t, c, root+"/s")
	cn, err := q.NewConsumer(func(context.Context, string) error { return nil })
	require.NoError(t, err)
	b, err := barrier.New(c, root+"/barrier")
	require.NoError(t, err)
	d, err := barrier.NewDouble(c, root+"/double", 1)
	require.NoError(t, err)
	m, err := d.Enter(ctx)
	require.NoError(t, err)
	l := newPromotedLong(t, c, root)
	n, err := atomicvalue.NewCachedLong(c, root+"/cached", 10)
	require.NoError(t, err)
	return []closedCase{
		{"queue.Queue.Put", func() error { return q.Put(ctx, "x") }, queue.ErrClosed},
		{"queue.IDQueue.Remove", func() error { return errOf(ids.Remove(ctx, "id")) }, queue.ErrClosed},
		{"queue.Simple.Offer", func() error { return s.Offer(ctx, []byte("x")) }, queue.ErrClosed},
		{"queue.Simple.Take", func() error { return errOf(s.Take(ctx)) }, queue.ErrClosed},
		{"queue.Simple.Poll", func() error { return errOf(s.Poll(ctx, time.Second)) }, queue.ErrClosed},
		{"queue.Simple.Peek", func() error { return errOf(s.Peek(ctx)) }, queue.ErrClosed},
		{"queue.Consumer.Start, then Err", func() error {
			if err := cn.Start(context.Background()); err != nil {
				return err
			}
			<-cn.Done()
			return cn.Err()
		}, queue.ErrClosed},
		{"barrier.Barrier.Set", func() error { return b.Set(ctx) }, barrier.ErrClosed},
		{"barrier.Barrier.Wait", func() error { return b.Wait(ctx) }, barrier.ErrClosed},
		{"barrier.Double.Enter", func() error { return errOf(d.Enter(ctx)) }, barrier.ErrClosed},
		{"barrier.Member.Leave", func() error { return m.Leave(ctx) }, barrier.ErrClosed},
		{"atomicvalue.Long.Get", func() error { return errOf(l.Get(ctx)) }, atomicvalue.ErrClosed},
		{"atomicvalue.Long.Increment", func() error { return errOf(l.Increment(ctx)) }, atomicvalue.ErrClosed},
		{"atomicvalue.CachedLong.Next", func() error { return errOf(n.Next(ctx)) }, atomicvalue.ErrClosed},
	}
}
