package leader_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// joinLatchElection queues a latch node for id at path, as a latch does
// (Curator's wire format: _c_<uuid>-latch-<seq>, the id as data).
func joinLatchElection(ctx context.Context, t *testing.T, c *framework.Client, path, id string) string {
	t.Helper()
	n, err := c.CreateProtected(ctx, path+"/latch-", []byte(id), framework.EphemeralSequential, framework.WithParents())
	require.NoError(t, err)
	return n.Path
}

// asCurator lists ps as Curator's getParticipants does: id and leader flag.
func asCurator(ps []leader.Participant) []zktest.CuratorParticipant {
	out := make([]zktest.CuratorParticipant, len(ps))
	for i, p := range ps {
		out[i] = zktest.CuratorParticipant{ID: p.ID, Leader: p.Leader}
	}
	return out
}

// Go and Java latch participants in one queue are listed alike on both
// sides: Curator's order, the first the leader.
func TestObserver_ParticipantsMatchCuratorsLeaderLatch(t *testing.T) {
	servers := zktest.Servers(t)
	curator := zktest.StartCurator(t, servers)
	c := zktest.Connect(t, servers)
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	ids := []string{"java-1", "go-1", "java-2", "go-2", "java-3"}
	for i, id := range ids {
		if i%2 == 1 {
			joinLatchElection(ctx, t, c, path, id)
			continue
		}
		require.NoError(t, curator.LatchStart(ctx, id, path, id))
		require.Eventually(t, func() bool { return len(zktest.Children(t, c, path)) == i+1 },
			10*time.Second, 10*time.Millisecond, "Curator's latch %s joins", id)
	}
	got, err := newObserver(t, c, path).Participants(ctx)
	require.NoError(t, err)
	want, err := curator.LeaderLatchParticipants(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, want, asCurator(got))
	require.Len(t, got, len(ids))
	for i, p := range got {
		assert.Equal(t, ids[i], p.ID, "joined in this order")
	}
	leading, err := curator.LatchAwait(ctx, "java-1", 10*time.Second)
	require.NoError(t, err)
	assert.True(t, leading, "Curator's first latch leads")
	l, err := newObserver(t, c, path).Leader(ctx)
	require.NoError(t, err)
	assert.Equal(t, got[0], l)
}

// Participants lists once and reads every node in one multi-read (on a
// server before 3.6, one read each); Leader lists once and reads the
// first node.
func TestObserver_ParticipantsCostOneListingAndOneMultiRead(t *testing.T) {
	for _, old := range []bool{false, true} {
		t.Run(map[bool]string{false: "3.6+", true: "before 3.6"}[old], func(t *testing.T) {
			proxy := zktest.NewProxy(t, zktest.Servers(t))
			if old {
				proxy.MakeOld()
			}
			c := zktest.Connect(t, proxy.Addr())
			ctx := zktest.Context(t)
			path := zktest.UniquePath(t)
			for i := range 4 {
				joinLatchElection(ctx, t, c, path, fmt.Sprintf("p%d", i))
			}
			o := newObserver(t, c, path)
			lists, reads, multi := proxy.Requests(zktest.OpGetChildren2), proxy.Requests(zktest.OpGetData), proxy.Requests(zktest.OpMultiRead)
			ps, err := o.Participants(ctx)
			require.NoError(t, err)
			require.Len(t, ps, 4)
			assert.Equal(t, int64(1), proxy.Requests(zktest.OpGetChildren2)-lists, "listings")
			if old {
				assert.Equal(t, int64(4), proxy.Requests(zktest.OpGetData)-reads, "reads")
				assert.Equal(t, int64(0), proxy.Requests(zktest.OpMultiRead)-multi, "multi-reads")
			} else {
				assert.Equal(t, int64(0), proxy.Requests(zktest.OpGetData)-reads, "reads")
				assert.Equal(t, int64(1), proxy.Requests(zktest.OpMultiRead)-multi, "multi-reads")
			}

			lists, reads = proxy.Requests(zktest.OpGetChildren2), proxy.Requests(zktest.OpGetData)
			_, err = o.Leader(ctx)
			require.NoError(t, err)
			assert.Equal(t, int64(1), proxy.Requests(zktest.OpGetChildren2)-lists, "listings")
			assert.Equal(t, int64(1), proxy.Requests(zktest.OpGetData)-reads, "reads")
		})
	}
}

// An election without nodes, or without a path, has no leader: Leader says
// so rather than inventing one, and Participants is empty.
func TestObserver_EmptyElectionHasNoLeader(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	o := newObserver(t, c, path)
	_, err := o.Leader(ctx)
	require.ErrorIs(t, err, leader.ErrNoLeader, "no path")
	ps, err := o.Participants(ctx)
	require.NoError(t, err)
	assert.Empty(t, ps)

	n := joinLatchElection(ctx, t, c, path, "gone")
	require.NoError(t, c.Delete(ctx, n, -1))
	_, err = o.Leader(ctx)
	require.ErrorIs(t, err, leader.ErrNoLeader, "a path without nodes")
}

func TestNewObserver_RejectsBadInput(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	for name, tc := range map[string]struct {
		c    *framework.Client
		path string
		opts []leader.Option
	}{
		"nil client":    {nil, "/e", nil},
		"root":          {c, "/", nil},
		"relative path": {c, "e", nil},
		"nil option":    {c, "/e", []leader.Option{nil}},
		"an id":         {c, "/e", []leader.Option{leader.WithID("a")}},
		"auto-requeue":  {c, "/e", []leader.Option{leader.WithAutoRequeue()}},
		"a close mode":  {c, "/e", []leader.Option{leader.WithCloseMode(leader.Notify)}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := leader.NewObserver(tc.c, tc.path, tc.opts...)
			require.ErrorIs(t, err, leader.ErrInvalidArgument)
		})
	}
}

// A Java LeaderSelector that leads is observed by its Curator id, and so
// is a Java LeaderLatch.
func TestObserver_ObserveNamesAJavaLeaderByItsID(t *testing.T) {
	servers := zktest.Servers(t)
	curator := zktest.StartCurator(t, servers)
	c := zktest.Connect(t, servers)
	ctx := zktest.Context(t)
	selPath, latchPath := zktest.UniquePath(t), zktest.UniquePath(t)
	require.NoError(t, curator.LeaderSelectorStart(ctx, "sel", selPath, "java-selector"))
	require.NoError(t, curator.LatchStart(ctx, "latch", latchPath, "java-latch"))
	for path, want := range map[string]string{selPath: "java-selector", latchPath: "java-latch"} {
		var opts []leader.Option
		if path == selPath {
			opts = append(opts, leader.ObserveSelector())
		}
		seen, err := newObserver(t, c, path, opts...).Watch(ctx)
		require.NoError(t, err)
		require.Eventually(t, func() bool {
			o := <-seen
			return o.HasLeader() && o.Leader.ID == want && o.FencingToken > 0
		}, 10*time.Second, time.Millisecond, "%s observed", want)
	}
}

// Watch follows 1,000 hand-offs between Go lock holders with ids: every
// value it gives names a holder, in the order they held, and it settles on
// the last holder, then on "no leader".
func TestObserver_ObserveConvergesOverAThousandHandOffs(t *testing.T) {
	t.Parallel()
	const handOffs, holders = 1000, 3
	servers := zktest.Servers(t)
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	locks := make([]*mutex.Mutex, holders)
	for i := range locks {
		m, err := mutex.New(zktest.Connect(t, servers), path, mutex.WithData([]byte(fmt.Sprintf("holder-%d", i))))
		require.NoError(t, err)
		locks[i] = m
	}
	oc := zktest.Connect(t, servers)
	octx, stop := context.WithCancel(ctx)
	seen, err := newObserver(t, oc, path, leader.ObserveSelector()).Watch(octx)
	require.NoError(t, err)
	observed := make(chan []leader.Observation, 1)
	latest := make(chan leader.Observation, 1)
	// Ends when octx ends and Watch closes its channel.
	go func() {
		var all []leader.Observation
		for o := range seen {
			all = append(all, o)
			select {
			case <-latest:
			default:
			}
			latest <- o
		}
		observed <- all
	}()

	ledger := make(map[string]int) // node -> its place in the order of holders
	hold, err := locks[0].Acquire(mutex.ContextWithOwner(ctx, "turn-0"))
	require.NoError(t, err)
	ledger[hold.Node()] = 0
	for i := 1; i <= handOffs; i++ {
		next := make(chan *mutex.Hold, 1)
		// Ends when the next holder holds, or fails with the test's ctx.
		go func() {
			h, err := locks[i%holders].Acquire(mutex.ContextWithOwner(ctx, fmt.Sprintf("turn-%d", i)))
			assert.NoError(t, err)
			next <- h
		}()
		require.Eventually(t, func() bool { return len(zktest.Children(t, oc, path)) == 2 },
			10*time.Second, time.Millisecond, "hand-off %d queues", i)
		require.NoError(t, hold.Release(ctx))
		hold = <-next
		require.NotNil(t, hold)
		ledger[hold.Node()] = i
	}
	token, err := hold.FencingToken(ctx)
	require.NoError(t, err)
	want := leader.Observation{
		Leader:       leader.Participant{ID: fmt.Sprintf("holder-%d", handOffs%holders), Node: hold.Node(), Leader: true},
		FencingToken: token,
	}
	require.Eventually(t, func() bool {
		select {
		case o := <-latest:
			latest <- o
			return o == want
		default:
			return false
		}
	}, 10*time.Second, time.Millisecond, "Watch settles on the last holder")
	require.NoError(t, hold.Release(ctx))
	require.Eventually(t, func() bool {
		select {
		case o := <-latest:
			latest <- o
			return !o.HasLeader()
		default:
			return false
		}
	}, 10*time.Second, time.Millisecond, "Watch settles on no leader")
	stop()
	all := <-observed
	last := -1
	for i, o := range all[:len(all)-1] {
		if !o.HasLeader() {
			assert.Equal(t, -1, last, "observation %d: no leader in the middle of hand-offs", i)
			continue
		}
		place, ok := ledger[o.Leader.Node]
		require.True(t, ok, "observation %d names %q, which never held", i, o.Leader.Node)
		assert.Greater(t, place, last, "observation %d goes back in time", i)
		assert.Equal(t, fmt.Sprintf("holder-%d", place%holders), o.Leader.ID, "observation %d", i)
		last = place
	}
	t.Logf("%d observations over %d hand-offs", len(all), handOffs)
}
