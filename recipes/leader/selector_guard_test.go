package leader_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// A guard taken once the term has ended fails the transaction, also when
// the term ended on a suspension and the node is still there.
func TestSelector_GuardAfterASuspendedTermFails(t *testing.T) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	c := zktest.Connect(t, proxy.Addr())
	_, err := c.Create(ctx, path+"-data", nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	s := newSelector(t, c, path, func(fctx context.Context) error {
		term, _ := leader.LeadershipFrom(fctx)
		_, err := c.Multi(ctx, term.Guard(), framework.SetOp(path+"-data", []byte("in term"), -1))
		require.NoError(t, err)
		proxy.Cut()
		<-fctx.Done()
		<-term.Lost()
		require.NoError(t, c.WaitConnected(ctx))
		_, err = c.Multi(ctx, term.Guard(), framework.SetOp(path+"-data", []byte("after term"), -1))
		require.ErrorIs(t, err, leader.ErrLost)
		return nil
	})
	require.NoError(t, s.Run(ctx))
}
