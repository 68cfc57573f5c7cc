package reliability_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/atomicvalue"
	"github.com/zkrecipes/zkrecipes/recipes/barrier"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
	"github.com/zkrecipes/zkrecipes/recipes/discovery"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
	"github.com/zkrecipes/zkrecipes/recipes/node"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
)

// started is a recipe that runs in the background.
type started interface {
	Start(ctx context.Context) error
	Close(ctx context.Context) error
}

// runOnce starts r, waits with await, checks with check and closes r. A
// recipe that runs in the background has one life (Start after Close is
// ErrClosed), so its "same handle" is a new run made by the same use.
func runOnce(ctx context.Context, r started, await func(ctx context.Context) error, check func() error) error {
	if err := r.Start(ctx); err != nil {
		return err
	}
	err := await(ctx)
	if err == nil && check != nil {
		err = check()
	}
	return errors.Join(err, r.Close(ctx))
}

// deleteAfter returns a use that runs use and then deletes the node at
// path, as an operator would: the node a recipe keeps on purpose (a count,
// a value, a queue's directory) holds its container parents.
func deleteAfter(c *framework.Client, path string, use func(ctx context.Context) error) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		if err := use(ctx); err != nil {
			return err
		}
		return c.Delete(ctx, path, -1)
	}
}

func leaderReapCases() []reapCase {
	return []reapCase{
		{"leader/Latch", func(t *testing.T, c *framework.Client, path string) func(context.Context) error {
			o, err := leader.NewObserver(c, path)
			require.NoError(t, err)
			return func(ctx context.Context) error {
				if _, err := o.Leader(ctx); !errors.Is(err, leader.ErrNoLeader) {
					return fmt.Errorf("the observer's leader of an empty election: %w", err)
				}
				wctx, stop := context.WithCancel(ctx)
				defer stop()
				seen, err := o.Watch(wctx)
				if err != nil {
					return err
				}
				if first := <-seen; first.HasLeader() {
					return fmt.Errorf("the observer's first value of an empty election: %+v", first)
				}
				l, err := leader.NewLatch(c, path, leader.WithID("latch"))
				if err != nil {
					return err
				}
				return runOnce(ctx, l, func(ctx context.Context) error { _, err := l.Await(ctx); return err }, func() error {
					p, err := o.Leader(ctx)
					if err == nil && p.ID != "latch" {
						err = fmt.Errorf("the observer sees %q lead", p.ID)
					}
					return errors.Join(err, awaitLeader(ctx, seen, "latch"))
				})
			}
		}},
		{"leader/Selector", func(t *testing.T, c *framework.Client, path string) func(context.Context) error {
			s, err := leader.NewSelector(c, path, func(context.Context) error { return nil })
			require.NoError(t, err)
			return s.Run
		}},
	}
}

// awaitLeader waits until an observer's watch tells that id leads.
func awaitLeader(ctx context.Context, seen <-chan leader.Observation, id string) error {
	timeout := time.After(10 * time.Second)
	for {
		select {
		case o, ok := <-seen:
			if !ok {
				return errors.New("the observer's watch ended")
			}
			if o.Leader.ID == id {
				return nil
			}
		case <-timeout:
			return fmt.Errorf("the observer's watch never told that %s leads", id)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func cacheAndNodeReapCases() []reapCase {
	return []reapCase{
		{"cache/started on a reaped path", func(t *testing.T, c *framework.Client, path string) func(context.Context) error {
			return func(ctx context.Context) error {
				m, err := node.New(c, path+"/member", framework.Ephemeral, []byte("x"))
				if err != nil {
					return err
				}
				if err := m.Start(ctx); err != nil {
					return err
				}
				defer func() { _ = m.Close(ctx) }()
				if err := m.AwaitCreated(ctx); err != nil {
					return err
				}
				ch, err := cache.New(c, path)
				if err != nil {
					return err
				}
				return runOnce(ctx, ch, ch.AwaitInitialized, func() error {
					if _, ok := ch.Get(path + "/member"); !ok {
						return fmt.Errorf("the cache lacks %s/member: %v", path, ch.Entries())
					}
					return nil
				})
			}
		}},
		{"node/Node", func(t *testing.T, c *framework.Client, path string) func(context.Context) error {
			return func(ctx context.Context) error {
				n, err := node.New(c, path+"/node", framework.Ephemeral, []byte("x"))
				if err != nil {
					return err
				}
				return runOnce(ctx, n, n.AwaitCreated, nil)
			}
		}},
		{"node/GroupMember", func(t *testing.T, c *framework.Client, path string) func(context.Context) error {
			return func(ctx context.Context) error {
				g, err := node.NewGroupMember(c, path, "member", []byte("x"))
				if err != nil {
					return err
				}
				return runOnce(ctx, g, g.AwaitJoined, func() error {
					if _, ok := g.Members()["member"]; !ok {
						return fmt.Errorf("the group lacks its member: %v", g.Members())
					}
					return nil
				})
			}
		}},
	}
}

func discoveryReapCases() []reapCase {
	return []reapCase{
		{"discovery/Register, Instances and ServiceCache", func(t *testing.T, c *framework.Client, path string) func(context.Context) error {
			d, err := discovery.New[string](c, path)
			require.NoError(t, err)
			return func(ctx context.Context) error {
				r, err := d.Register(ctx, discovery.Instance[string]{Name: "svc", ID: "one", Address: "127.0.0.1"})
				if err != nil {
					return err
				}
				defer func() { _ = r.Close(ctx) }()
				insts, err := d.Instances(ctx, "svc")
				if err != nil || len(insts) != 1 {
					return fmt.Errorf("instances %v: %w", insts, err)
				}
				sc, err := d.Cache("svc")
				if err != nil {
					return err
				}
				err = runOnce(ctx, sc, sc.AwaitInitialized, func() error {
					if n := len(sc.Instances()); n != 1 {
						return fmt.Errorf("the service cache holds %d instances", n)
					}
					return nil
				})
				return errors.Join(err, r.Close(ctx))
			}
		}},
	}
}

func valueReapCases() []reapCase {
	return []reapCase{
		{"sharedcount/Set and Get", func(t *testing.T, c *framework.Client, path string) func(context.Context) error {
			s, err := sharedcount.New(c, path+"/count", 5)
			require.NoError(t, err)
			return deleteAfter(c, path+"/count", func(ctx context.Context) error {
				if v, err := s.Get(ctx); err != nil || v.Count != 5 {
					return fmt.Errorf("get of a missing count: %v, %w", v, err)
				}
				if err := s.Set(ctx, 7); err != nil {
					return err
				}
				v, err := s.Get(ctx)
				if err == nil && v.Count != 7 {
					err = fmt.Errorf("count %d after a set of 7", v.Count)
				}
				return err
			})
		}},
		{"sharedcount/Set of a missing count", func(t *testing.T, c *framework.Client, path string) func(context.Context) error {
			s, err := sharedcount.New(c, path+"/count", 5)
			require.NoError(t, err)
			return deleteAfter(c, path+"/count", func(ctx context.Context) error { return s.Set(ctx, 7) })
		}},
		{"atomicvalue/Increment", func(t *testing.T, c *framework.Client, path string) func(context.Context) error {
			l, err := atomicvalue.NewLong(c, path+"/value")
			require.NoError(t, err)
			return deleteAfter(c, path+"/value", func(ctx context.Context) error { return succeeded(l.Increment(ctx)) })
		}},
		{"atomicvalue/Increment promoted to a lock", func(t *testing.T, c *framework.Client, path string) func(context.Context) error {
			l, err := atomicvalue.NewLong(c, path+"/value", atomicvalue.WithPromotedToLock(atomicvalue.PromotedToLock{Path: path + "/lock"}),
				atomicvalue.WithRetryPolicy(framework.RetryNTimes(0, 0)))
			require.NoError(t, err)
			return deleteAfter(c, path+"/value", func(ctx context.Context) error { return succeeded(l.Increment(ctx)) })
		}},
		{"atomicvalue/ForceSet", func(t *testing.T, c *framework.Client, path string) func(context.Context) error {
			l, err := atomicvalue.NewLong(c, path+"/value")
			require.NoError(t, err)
			return deleteAfter(c, path+"/value", func(ctx context.Context) error { return l.ForceSet(ctx, 3) })
		}},
	}
}

// succeeded says whether an update of an atomic value succeeded.
func succeeded[T any](r atomicvalue.Result[T], err error) error {
	if err == nil && !r.Succeeded {
		err = errors.New("the update did not succeed")
	}
	return err
}

func barrierAndQueueReapCases() []reapCase {
	return []reapCase{
		{"barrier/Set, Remove and Wait", func(t *testing.T, c *framework.Client, path string) func(context.Context) error {
			b, err := barrier.New(c, path+"/barrier")
			require.NoError(t, err)
			return func(ctx context.Context) error {
				if err := b.Set(ctx); err != nil {
					return err
				}
				if err := b.Remove(ctx); err != nil {
					return err
				}
				return b.Wait(ctx)
			}
		}},
		{"barrier/Double Enter and Leave", func(t *testing.T, c *framework.Client, path string) func(context.Context) error {
			d, err := barrier.NewDouble(c, path, 1)
			require.NoError(t, err)
			return func(ctx context.Context) error {
				m, err := d.Enter(ctx)
				if err != nil {
					return err
				}
				return m.Leave(ctx)
			}
		}},
		{"queue/Simple Offer and Take", func(t *testing.T, c *framework.Client, path string) func(context.Context) error {
			s, err := queue.NewSimple(c, path)
			require.NoError(t, err)
			return func(ctx context.Context) error {
				if err := s.Offer(ctx, []byte("x")); err != nil {
					return err
				}
				_, err := s.Take(ctx)
				return err
			}
		}},
		{"queue/Put and a consumer", func(t *testing.T, c *framework.Client, path string) func(context.Context) error {
			return deleteAfter(c, path+"/queue", func(ctx context.Context) error {
				q, err := queue.New[string](c, path+"/queue", queue.StringCodec{})
				if err != nil {
					return err
				}
				taken := make(chan string, 1)
				cn, err := q.NewConsumer(func(_ context.Context, item string) error { taken <- item; return nil })
				if err != nil {
					return err
				}
				return runOnce(ctx, cn, func(ctx context.Context) error {
					if err := q.Put(ctx, "x"); err != nil {
						return err
					}
					select {
					case <-taken:
						return nil
					case <-time.After(10 * time.Second):
						return errors.New("the consumer took nothing")
					}
				}, nil)
			})
		}},
	}
}
