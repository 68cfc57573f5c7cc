package leader_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

const shortSession = 2 * time.Second

// Each cause of loss ends the term with an error that wraps ErrLost and
// names the cause, the listeners are told NotLeader, and the latch, the
// only participant, leads again by itself: with its node when its session
// survived the loss, else with a new node, the old one deleted.
func TestLatch_EveryLossEndsTheTermAndTheLatchLeadsAgain(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		policy framework.ErrorPolicy
		// dial connects the latch's client; cause makes the loss, and
		// undoes what it did once the loss is signalled.
		dial  func(t *testing.T) (c *framework.Client, cause func(t *testing.T, c *framework.Client, lead *leader.Leadership) (undo func()))
		names string // what Err says
		// node is the node of the next term: "kept" (the session survives
		// the loss), "new", or "either" (the session may or may not
		// survive: the node is kept exactly when it does).
		node string
	}{
		{"suspension under the standard policy", framework.StandardErrorPolicy, viaProxy(func(t *testing.T, p *zktest.Proxy, _ *framework.Client, _ *leader.Leadership) func() {
			p.Cut()
			return func() {}
		}), "connection suspended", "kept"},
		{"lease run out under the session policy", framework.SessionErrorPolicy, viaProxy(func(t *testing.T, p *zktest.Proxy, _ *framework.Client, _ *leader.Leadership) func() {
			p.PauseRequests()
			return p.Resume
		}), "lease ran out", "either"},
		{"session expired under the session policy", framework.SessionErrorPolicy, expireSession, "lease ran out", "new"},
		{"node deleted by someone else", framework.StandardErrorPolicy, func(t *testing.T) (*framework.Client, func(*testing.T, *framework.Client, *leader.Leadership) func()) {
			return connect(t, zktest.Servers(t)), func(t *testing.T, _ *framework.Client, lead *leader.Leadership) func() {
				require.NoError(t, connect(t, zktest.Servers(t)).Delete(testContext(t), lead.Node(), -1))
				return func() {}
			}
		}, "was deleted", "new"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, cause := tc.dial(t)
			p := zktest.UniquePath(t)
			l := startLatch(t, c, p, leader.WithErrorPolicy(tc.policy), leader.WithID("only"))
			rec := newRecorder()
			l.AddListener(rec.listen)
			lead := await(t, l, 10*time.Second, "the latch")
			rec.waitCalls(t, []string{"is"})

			undo := cause(t, c, lead)
			waitClosed(t, lead.Lost(), 30*time.Second, "the term")
			undo()
			require.ErrorIs(t, lead.Err(), leader.ErrLost)
			assert.Contains(t, lead.Err().Error(), tc.names)
			rec.waitCalls(t, []string{"is", "not"})

			again := await(t, l, 30*time.Second, "the latch after the loss")
			if kept := again.Session() == lead.Session(); tc.node == "kept" || (tc.node == "either" && kept) {
				require.True(t, kept, "the session survived")
				assert.Equal(t, lead.Node(), again.Node(), "the node kept")
				assert.NotSame(t, lead, again, "a new term")
			} else {
				assert.NotEqual(t, lead.Node(), again.Node(), "a new node")
			}
			assert.NoError(t, again.Err())
			rec.waitCalls(t, []string{"is", "not", "is"})
			require.Eventually(t, func() bool { return len(children(t, c, p)) == 1 }, 10*time.Second, 10*time.Millisecond,
				"the lost term's node is deleted")
		})
	}
}

// viaProxy connects the latch's client through a proxy with a short
// session, and causes the loss with what.
func viaProxy(what func(*testing.T, *zktest.Proxy, *framework.Client, *leader.Leadership) func()) func(t *testing.T) (*framework.Client, func(*testing.T, *framework.Client, *leader.Leadership) func()) {
	return func(t *testing.T) (*framework.Client, func(*testing.T, *framework.Client, *leader.Leadership) func()) {
		proxy := zktest.NewProxy(t, zktest.Servers(t))
		c := connect(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
		return c, func(t *testing.T, c *framework.Client, lead *leader.Leadership) func() {
			return what(t, proxy, c, lead)
		}
	}
}

// expireSession connects through a dialer of the test's own, which the
// client wraps, and partitions the client until the server expires the
// session: under the session policy the lease ends the term first.
func expireSession(t *testing.T) (*framework.Client, func(*testing.T, *framework.Client, *leader.Leadership) func()) {
	faults := zktesting.NewFaults()
	c := connect(t, zktest.Servers(t), framework.WithSessionTimeout(shortSession), framework.WithZKOptions(zk.WithDialer(faults.Dial)))
	return c, func(t *testing.T, c *framework.Client, lead *leader.Leadership) func() {
		require.NoError(t, faults.ExpireSession(testContext(t), zktest.Servers(t), lead.Session().ID()))
		return func() {}
	}
}

// Leaving tells NotLeader in Notify mode only; the term's Lost closes in
// both, with ErrClosed for Close and the context's error for Start's.
func TestLatch_CloseModeDecidesWhetherLeavingTellsNotLeader(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	for _, mode := range []leader.CloseMode{leader.Silent, leader.Notify} {
		for _, byContext := range []bool{false, true} {
			l, err := leader.NewLatch(c, zktest.UniquePath(t), leader.WithCloseMode(mode))
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(context.Background())
			require.NoError(t, l.Start(ctx))
			rec := newRecorder()
			l.AddListener(rec.listen)
			lead := await(t, l, 10*time.Second, "the latch")
			rec.waitCalls(t, []string{"is"})
			if byContext {
				cancel()
			} else {
				require.NoError(t, l.Close(testContext(t)))
			}
			cancel()
			waitClosed(t, lead.Lost(), 10*time.Second, "the term")
			if byContext {
				require.ErrorIs(t, lead.Err(), context.Canceled)
			} else {
				require.ErrorIs(t, lead.Err(), leader.ErrClosed)
			}
			if mode == leader.Notify {
				rec.waitCalls(t, []string{"is", "not"})
				continue
			}
			require.Eventually(t, func() bool { return l.State() == leader.Closed }, 10*time.Second, 5*time.Millisecond)
			require.NoError(t, l.Close(testContext(t)))
			calls, faults := rec.seen()
			assert.Empty(t, faults)
			assert.Equal(t, []string{"is"}, calls, "%v mode, by context %v", mode, byContext)
		}
	}
}
