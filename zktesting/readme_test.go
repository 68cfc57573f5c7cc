package zktesting_test

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// The README's "Testing your code": a hold is lost when its session is
// expired, and the client carries on in a new session.
func TestFaults_ExpireSessionLosesAHold(t *testing.T) {
	t.Parallel()
	integration(t)
	server := zktesting.NewServer(t)
	faults := zktesting.NewFaults()
	client, err := framework.Connect(t.Context(), []string{server.Addr()},
		framework.WithZKOptions(zk.WithDialer(faults.Dial)), framework.WithSessionTimeout(2*time.Second))
	require.NoError(t, err)
	defer client.Close()
	lock, err := mutex.New(client, "/locks/billing")
	require.NoError(t, err)
	hold, err := lock.Acquire(t.Context())
	require.NoError(t, err)
	session := client.Session()

	require.NoError(t, faults.ExpireSession(testContext(t), server.Addr(), session.ID()))
	select {
	case <-hold.Lost():
	case <-time.After(30 * time.Second):
		t.Fatal("the hold of an expired session was not signalled lost")
	}
	assert.ErrorIs(t, hold.Err(), mutex.ErrLost)
	assert.ErrorIs(t, hold.Release(testContext(t)), mutex.ErrLost, "a lost hold is released with an error")
	require.NoError(t, client.WaitConnected(testContext(t)))
	require.Eventually(t, func() bool { s := client.Session(); return s != nil && s.ID() != session.ID() },
		30*time.Second, 20*time.Millisecond, "a new session")
	hold, err = lock.AcquireTimeout(testContext(t), 30*time.Second)
	require.NoError(t, err, "the lock is free again once the old session is gone")
	require.NoError(t, hold.Release(testContext(t)))

	require.NoError(t, server.Restart(testContext(t)))
}
