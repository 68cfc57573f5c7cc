package leader_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// In Notify mode Close returns only once the NotLeader it causes has
// returned, as Curator's close() calls notLeader before it returns: a
// NotLeader still running keeps Close waiting, up to its ctx.
func TestLatch_CloseReturnsAfterTheNotLeaderItCauses(t *testing.T) {
	l, err := leader.NewLatch(connect(t, zktest.Servers(t)), zktest.UniquePath(t), leader.WithCloseMode(leader.Notify))
	require.NoError(t, err)
	rec := newRecorder()
	l.AddListener(rec.listen)
	release := make(chan struct{})
	var returned atomic.Bool
	l.AddListener(func(ev leader.Event) {
		if ev.Type == leader.NotLeader {
			<-release
			returned.Store(true)
		}
	})
	require.NoError(t, l.Start(context.Background()))
	await(t, l, 10*time.Second, "the latch")
	rec.waitCalls(t, []string{"is"})

	short, cancel := context.WithTimeout(testContext(t), 300*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, l.Close(short), context.DeadlineExceeded, "Close returned while NotLeader ran")
	calls, _ := rec.seen()
	assert.Equal(t, []string{"is", "not"}, calls, "the first listener's NotLeader has returned")
	close(release)
	require.NoError(t, l.Close(testContext(t)))
	assert.True(t, returned.Load(), "NotLeader has returned when Close returns")
}

// A listener may close its latch from either call, in Notify mode, while
// another goroutine closes it too: nothing deadlocks, the outside Close
// returns after the listener's calls, and NotLeader follows the
// listener's own Close once that listener has returned.
func TestLatch_ListenerThatClosesItsLatchDoesNotDeadlock(t *testing.T) {
	for _, from := range []string{"IsLeader", "NotLeader"} {
		t.Run(from, func(t *testing.T) {
			l, err := leader.NewLatch(connect(t, zktest.Servers(t)), zktest.UniquePath(t), leader.WithCloseMode(leader.Notify))
			require.NoError(t, err)
			closed, told := make(chan error, 1), make(chan struct{})
			closeIt := func() { closed <- l.Close(context.Background()) }
			l.AddListener(func(ev leader.Event) {
				switch {
				case ev.Type == leader.IsLeader && from == "IsLeader":
					closeIt()
				case ev.Type == leader.NotLeader && from == "NotLeader":
					closeIt()
					close(told)
				case ev.Type == leader.NotLeader:
					close(told)
				}
			})
			require.NoError(t, l.Start(context.Background()))
			if from == "NotLeader" {
				await(t, l, 10*time.Second, "the latch")
				require.NoError(t, l.Resign(testContext(t)))
			}
			select {
			case err := <-closed:
				require.NoError(t, err)
			case <-time.After(10 * time.Second):
				t.Fatalf("Close from %s did not return", from)
			}
			require.NoError(t, l.Close(testContext(t)), "a second Close, from outside")
			waitClosed(t, told, 10*time.Second, "NotLeader")
		})
	}
}
