package zktest

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

func TestEnsemble_SurvivesLosingItsLeader(t *testing.T) {
	t.Parallel()
	e := NewEnsemble(t, 3)
	require.Len(t, e.Addrs(), 3)
	s := connect(t, e.ConnectString(), 10*time.Second)
	path := UniquePath(t)
	ensurePath(t, s.Conn, path)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	leader, err := e.Leader(ctx)
	require.NoError(t, err)
	require.NoError(t, e.StopMember(leader))
	assert.Zero(t, e.Member(leader).PID())

	assert.Eventually(t, func() bool {
		_, err := s.Create(path+"/after", nil, 0, zk.WorldACL(zk.PermAll))
		return err == nil || err == zk.ErrNodeExists
	}, 30*time.Second, 100*time.Millisecond, "two of three members serve")
	newLeader, err := e.Leader(ctx)
	require.NoError(t, err)
	assert.NotEqual(t, leader, newLeader)

	require.NoError(t, e.StartMember(ctx, leader))
	stats, err := zktesting.Mntr(ctx, e.Addrs()[leader])
	require.NoError(t, err)
	assert.Equal(t, "follower", stats["zk_server_state"])
}
