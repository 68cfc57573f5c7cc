package node_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/node"
)

// A node started on a closed client stops at once, saying why, as every
// other recipe's call on a closed client fails at once.
func TestNode_StartedOnAClosedClientStopsWithErrClosed(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	n, err := node.New(c, zktest.UniquePath(t)+"/member", framework.Ephemeral, nil)
	require.NoError(t, err)
	require.NoError(t, c.Close())
	require.NoError(t, n.Start(context.Background()))
	defer n.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = n.AwaitCreated(ctx)
	require.ErrorIs(t, err, framework.ErrClosed)
	assert.ErrorIs(t, err, node.ErrClosed)
	zktest.WaitClosed(t, n.Done(), time.Second, "the node's Done")
	assert.ErrorIs(t, n.Err(), framework.ErrClosed)
}
