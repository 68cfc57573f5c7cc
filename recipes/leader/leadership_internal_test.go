package leader

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// A term ended by its owner (Resign, Close) before its node is deleted
// gives a guard that fails at once: the node still stands, but the term
// does not.
func TestLeadership_GuardTakenAfterTheEndFailsWhileTheNodeStands(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	ctx := zktest.Context(t)
	p := zktest.UniquePath(t)
	m, err := mutex.New(c, p)
	require.NoError(t, err)
	hold, err := m.Acquire(ctx)
	require.NoError(t, err)
	defer func() { _ = hold.Release(ctx) }()
	term := newLeadership(hold, "id")
	_, err = c.Multi(ctx, term.Guard(), framework.SetOp(p, []byte("leader"), -1))
	require.NoError(t, err, "the guard holds while the term does")

	require.True(t, term.end(ErrResigned))
	_, err = c.Multi(ctx, term.Guard(), framework.SetOp(p, []byte("stale"), -1))
	require.ErrorIs(t, err, ErrLost)
	require.ErrorIs(t, term.Err(), ErrResigned)
}
