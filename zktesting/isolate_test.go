package zktesting_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/zktesting"
)

// serving returns the mode a member reports in srvr ("leader",
// "follower"), or "" while it serves no clients.
func serving(t *testing.T, addr string) string {
	out, err := zktesting.FourLetterWord(testContext(t), addr, "srvr")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(out, "\n") {
		if mode, ok := strings.CutPrefix(line, "Mode: "); ok {
			return strings.TrimSpace(mode)
		}
	}
	return ""
}

func TestEnsemble_IsolatedFollowerStopsServingAndRejoins(t *testing.T) {
	t.Parallel()
	integration(t)
	const tick, syncLimit = 200 * time.Millisecond, 5
	e := zktesting.NewEnsemble(t, 3, zktesting.WithPeerFaults(), zktesting.WithSyncLimit(syncLimit), zktesting.WithTickTime(tick))
	assert.Equal(t, syncLimit*tick+tick/2, e.ServerLag())
	leader, err := e.Leader(testContext(t))
	require.NoError(t, err)
	follower, other := (leader+1)%3, (leader+2)%3
	onFollower := dial(t, e.Addrs()[follower], 20*time.Second)
	onOther := dial(t, e.Addrs()[other], 20*time.Second)

	require.NoError(t, e.Isolate(follower))
	cut := time.Now()
	require.NoError(t, e.Isolate(follower), "isolating twice does nothing")
	// The follower answers on its own until it notices the silence; this
	// read comes well inside syncLimit × tickTime.
	_, _, err = onFollower.Exists("/")
	assert.NoError(t, err, "the isolated follower still answered its client")
	require.Eventually(t, func() bool { return serving(t, e.Addrs()[follower]) == "" },
		30*time.Second, 20*time.Millisecond, "the isolated follower stops serving")
	t.Logf("the isolated follower served for %v after the cut (syncLimit × tickTime = %v)", time.Since(cut).Round(time.Millisecond), syncLimit*tick)

	// The others keep a quorum: they serve writes, and one of them leads.
	// The client may be between connections when the cut lands (a loaded
	// machine can make the remaining pair re-elect): it tries again.
	require.Eventually(t, func() bool {
		_, err := onOther.Create("/isolated", nil, 0, zk.WorldACL(zk.PermAll))
		return err == nil || errors.Is(err, zk.ErrNodeExists)
	}, 30*time.Second, 50*time.Millisecond, "the other members serve writes")
	lead, err := e.Leader(testContext(t))
	require.NoError(t, err)
	assert.NotEqual(t, follower, lead)

	require.NoError(t, e.Rejoin(follower))
	require.Eventually(t, func() bool { return serving(t, e.Addrs()[follower]) == "follower" },
		time.Minute, 50*time.Millisecond, "the follower rejoins")
	require.Eventually(t, func() bool {
		ok, _, err := onFollower.Exists("/isolated")
		return err == nil && ok
	}, 30*time.Second, 50*time.Millisecond, "the rejoined follower has what was written without it")
}

func TestEnsemble_IsolateRejectsBadInput(t *testing.T) {
	t.Parallel()
	integration(t)
	e := zktesting.NewEnsemble(t, 1)
	assert.ErrorIs(t, e.Isolate(0), zktesting.ErrNoPeerFaults)
	assert.ErrorIs(t, e.Rejoin(0), zktesting.ErrNoPeerFaults)
	assert.ErrorIs(t, e.Isolate(1), zktesting.ErrNoMember)
	assert.ErrorIs(t, e.Rejoin(-1), zktesting.ErrNoMember)
	_, err := zktesting.StartEnsemble(testContext(t), 3, zktesting.WithSyncLimit(0))
	assert.ErrorIs(t, err, zktesting.ErrInvalidSyncLimit)
}

func TestEnsemble_IsolatedLeaderIsReplacedAndFollowsOnRejoin(t *testing.T) {
	t.Parallel()
	integration(t)
	e := zktesting.NewEnsemble(t, 3, zktesting.WithPeerFaults(), zktesting.WithSyncLimit(5))
	leader, err := e.Leader(testContext(t))
	require.NoError(t, err)
	onOther := dial(t, e.Addrs()[(leader+1)%3], 20*time.Second)

	require.NoError(t, e.Isolate(leader))
	require.Eventually(t, func() bool {
		for i, addr := range e.Addrs() {
			if i != leader && serving(t, addr) == "leader" {
				return true
			}
		}
		return false
	}, time.Minute, 50*time.Millisecond, "the other two elect a leader")
	require.Eventually(t, func() bool { return serving(t, e.Addrs()[leader]) == "" },
		30*time.Second, 20*time.Millisecond, "the isolated leader, without a quorum, stops serving")
	_, err = onOther.Create("/after-leader", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)

	require.NoError(t, e.Rejoin(leader))
	require.Eventually(t, func() bool { return serving(t, e.Addrs()[leader]) == "follower" },
		time.Minute, 50*time.Millisecond, "the old leader follows the new one")
}
