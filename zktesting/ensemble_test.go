package zktesting_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/zktesting"
)

func TestStartEnsemble_OfOneRunsStandalone(t *testing.T) {
	t.Parallel()
	integration(t)
	e, err := zktesting.StartEnsemble(testContext(t), 1)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, e.Close()) })

	leader, err := e.Leader(testContext(t))
	require.NoError(t, err)
	assert.Equal(t, 0, leader)
	assert.Equal(t, e.Addrs()[0], e.ConnectString())
	assert.ErrorIs(t, e.StopMember(1), zktesting.ErrNoMember)
	assert.ErrorIs(t, e.StartMember(testContext(t), -1), zktesting.ErrNoMember)
	assert.Nil(t, e.Member(5))
}

func TestEnsemble_StopAndStartAMember(t *testing.T) {
	t.Parallel()
	integration(t)
	e, err := zktesting.StartEnsemble(testContext(t), 3)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, e.Close()) })

	leader, err := e.Leader(testContext(t))
	require.NoError(t, err)
	follower := (leader + 1) % 3
	require.NoError(t, e.StopMember(follower))
	require.NoError(t, e.StartMember(testContext(t), follower))
	stats, err := zktesting.Mntr(testContext(t), e.Addrs()[follower])
	require.NoError(t, err)
	assert.Equal(t, "follower", stats["zk_server_state"])
	assert.Eventually(t, func() bool {
		stats, err := zktesting.Mntr(testContext(t), e.Addrs()[leader])
		return err == nil && stats["zk_synced_followers"] == "2"
	}, 10*time.Second, 50*time.Millisecond, "the leader has both followers again")
}
