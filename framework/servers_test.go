package framework_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// A server restart within the session timeout is a suspension, not a loss:
// the session and its ephemeral nodes survive.
func TestServers_RestartWithinTheSessionTimeoutKeepsTheSession(t *testing.T) {
	t.Parallel()
	server := zktest.NewServer(t)
	c := connect(t, server.Addr(), framework.WithSessionTimeout(20*time.Second))
	states := recordStates(c)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	_, err := c.Create(ctx, path, nil, framework.Ephemeral, framework.WithParents())
	require.NoError(t, err)
	session := c.Session()

	require.NoError(t, server.Stop())
	assert.Equal(t, framework.Suspended, states.next(t, 20*time.Second).State)
	restart, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, server.Restart(restart))
	s := states.next(t, 30*time.Second)
	assert.Equal(t, framework.Reconnected, s.State)
	assert.False(t, s.NewSession)
	assert.Same(t, session, c.Session())
	ok, _, err := c.Exists(ctx, path)
	require.NoError(t, err)
	assert.True(t, ok, "the ephemeral node survived the restart")
}

// Stopping the ensemble member the client is connected to, the leader
// included, moves the client to another member in the same session.
func TestServers_StoppingAMemberMovesTheClientToAnother(t *testing.T) {
	t.Parallel()
	ensemble := zktest.NewEnsemble(t, 3)
	c, err := framework.Connect(testContext(t), ensemble.Addrs(), framework.WithSessionTimeout(20*time.Second))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	states := recordStates(c)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	_, err = c.Create(ctx, path, []byte("v"), framework.Ephemeral, framework.WithParents())
	require.NoError(t, err)
	session := c.Session()

	// First the member the client is on, then the leader: its loss makes
	// every follower drop its clients until a new leader is elected.
	pick := []func() int{
		func() int { return connectedMember(t, ensemble.Addrs(), c) },
		func() int {
			leader, err := ensemble.Leader(ctx)
			require.NoError(t, err)
			return leader
		},
	}
	for _, choose := range pick {
		victim := choose()
		t.Logf("stopping member %d", victim)
		require.NoError(t, ensemble.StopMember(victim))
		waitForState(t, states, framework.Reconnected)
		assert.Same(t, session, c.Session(), "same session after member %d stopped", victim)
		data, _, err := c.Get(ctx, path)
		require.NoError(t, err)
		assert.Equal(t, []byte("v"), data)
		start, cancel := context.WithTimeout(context.Background(), time.Minute)
		require.NoError(t, ensemble.StartMember(start, victim))
		cancel()
	}
}

// connectedMember returns the index of the member c's session lives on,
// from the servers' connection lists.
func connectedMember(t *testing.T, addrs []string, c *framework.Client) int {
	t.Helper()
	id := c.Session().ID()
	for i, addr := range addrs {
		cons, err := zktesting.FourLetterWord(testContext(t), addr, "cons")
		require.NoError(t, err)
		if strings.Contains(cons, fmt.Sprintf("sid=0x%x", id)) {
			return i
		}
	}
	t.Fatal("the client's session is on no member")
	return -1
}

func waitForState(t *testing.T, r *stateRecorder, want framework.ConnectionState) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		s := r.next(t, time.Until(deadline))
		t.Logf("state %v (session %#x, new %v)", s.State, s.SessionID, s.NewSession)
		if s.State == want {
			return
		}
	}
	t.Fatalf("no %v within 30 s", want)
}
