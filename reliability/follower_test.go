package reliability_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// The follower-cut ensemble: a follower cut off from its leader answers
// its clients for about followerSyncLimit × tickTime (200 ms), 1 s.
const followerSyncLimit = 5

// followerCut is one run of the follower cut: the holder's session
// timeout, and whether its client allows for the ensemble's lag.
type followerCut struct {
	session time.Duration
	lag     bool
	policy  framework.ErrorPolicy
}

// A holder whose client talks only to a follower keeps being answered by
// that follower after the follower has lost its leader, while the leader
// expires the holder's session and hands the lock on. With
// WithServerLag(syncLimit × tickTime + tickTime/2) the session lease tells
// the holder first, under both error policies; a session timeout below
// syncLimit × tickTime is too short for that lag, and Connect says so.
// Without the lag the overlap the framework's doc warns of may happen: it
// is logged, not asserted, since it depends on timing.
func TestFollowerCut_HolderIsToldBeforeTheNextHolderAcquires(t *testing.T) {
	t.Parallel() // each has servers of its own; most of its time is spent waiting
	zktest.Integration(t)
	e := zktest.NewEnsemble(t, 3, zktesting.WithPeerFaults(), zktesting.WithSyncLimit(followerSyncLimit))
	lag := e.ServerLag()
	syncSpan := lag - 100*time.Millisecond // syncLimit × tickTime at the default tick

	_, err := framework.New([]string{e.Addrs()[0]}, framework.WithSessionTimeout(syncSpan*4/5), framework.WithServerLag(lag))
	require.ErrorIs(t, err, framework.ErrInvalidOption, "a session below syncLimit × tickTime cannot keep a lease with the lag")

	for _, run := range []followerCut{
		{4 * time.Second, true, framework.StandardErrorPolicy},
		{4 * time.Second, true, framework.SessionErrorPolicy},
		{syncSpan * 4 / 5, false, framework.StandardErrorPolicy},
		{syncSpan * 4 / 5, false, framework.SessionErrorPolicy},
		{4 * time.Second, false, framework.StandardErrorPolicy},
		{4 * time.Second, false, framework.SessionErrorPolicy},
	} {
		name := run.session.String() + "/" + run.policy.String()
		if !run.lag {
			name += "/without lag"
		}
		t.Run(name, func(t *testing.T) { cutFollower(t, e, run, lag) })
	}
}

func cutFollower(t *testing.T, e *zktesting.Ensemble, run followerCut, lag time.Duration) {
	ctx := zktest.Context(t)
	leader, err := e.Leader(ctx)
	require.NoError(t, err)
	follower := (leader + 1) % 3
	opts := []framework.Option{framework.WithSessionTimeout(run.session)}
	if run.lag {
		opts = append(opts, framework.WithServerLag(lag))
	}
	holderClient := zktest.Connect(t, e.Addrs()[follower], opts...)
	waiterClient := zktest.Connect(t, e.Addrs()[leader])
	path := zktest.UniquePath(t)
	lost := takeMutex(ctx, t, holderClient, path, run.policy)

	acquired := make(chan time.Time, 1)
	// Ends when the waiter acquires, or with the test's context.
	go func() {
		m, err := mutex.New(waiterClient, path, mutex.WithErrorPolicy(run.policy))
		if !assert.NoError(t, err) {
			return
		}
		if _, err := m.Acquire(ctx); err == nil {
			acquired <- time.Now()
		}
	}()
	require.Eventually(t, func() bool { return len(zktest.Children(t, waiterClient, path)) == 2 },
		10*time.Second, 10*time.Millisecond, "the waiter queues")

	require.NoError(t, e.Isolate(follower))
	cut := time.Now()
	t.Cleanup(func() { rejoin(t, e, follower) })
	told, at := awaitBoth(lost, acquired, 30*time.Second)
	require.False(t, at.IsZero(), "the waiter never acquired")
	require.False(t, told.IsZero(), "the holder was never told")
	if run.lag {
		require.True(t, told.Before(at), "told %v after the cut, the waiter acquired %v after it", told.Sub(cut), at.Sub(cut))
		t.Logf("%v, %s policy, lag %v: the holder was told %v after the cut, %v before the waiter acquired",
			run.session, run.policy, lag, told.Sub(cut).Round(time.Millisecond), at.Sub(told).Round(time.Millisecond))
		return
	}
	if told.After(at) {
		t.Logf("%v, %s policy, no lag: the holds overlapped by %v (the doc's warning)", run.session, run.policy, told.Sub(at).Round(time.Millisecond))
	} else {
		t.Logf("%v, %s policy, no lag: the holder was told first this time, by %v", run.session, run.policy, at.Sub(told).Round(time.Millisecond))
	}
}

// takeMutex acquires the mutex at path and returns its loss channel.
func takeMutex(ctx context.Context, t *testing.T, c *framework.Client, path string, policy framework.ErrorPolicy) <-chan struct{} {
	m, err := mutex.New(c, path, mutex.WithErrorPolicy(policy))
	require.NoError(t, err)
	h, err := m.Acquire(ctx)
	require.NoError(t, err)
	return h.Lost()
}

// awaitBoth waits, up to timeout, until lost is closed and a time arrives
// on acquired; it returns when each happened (zero for what did not).
func awaitBoth(lost <-chan struct{}, acquired <-chan time.Time, timeout time.Duration) (told, at time.Time) {
	expired := time.After(timeout)
	for told.IsZero() || at.IsZero() {
		select {
		case <-lost:
			told, lost = time.Now(), nil
		case at = <-acquired:
		case <-expired:
			return told, at
		}
	}
	return told, at
}

// rejoin ends the cut of member i and waits until it follows again and the
// leader counts both followers in sync, so that the next run starts whole.
func rejoin(t *testing.T, e *zktesting.Ensemble, i int) {
	ctx := zktest.Context(t)
	require.NoError(t, e.Rejoin(i))
	require.Eventually(t, func() bool {
		out, err := zktesting.FourLetterWord(ctx, e.Addrs()[i], "srvr")
		return err == nil && strings.Contains(out, "Mode: follower")
	}, time.Minute, 50*time.Millisecond, "member %d follows again", i)
	require.Eventually(t, func() bool {
		leader, err := e.Leader(ctx)
		if err != nil {
			return false
		}
		stats, err := zktesting.Mntr(ctx, e.Addrs()[leader])
		return err == nil && stats["zk_synced_followers"] == "2"
	}, time.Minute, 50*time.Millisecond, "the leader has both followers")
}
