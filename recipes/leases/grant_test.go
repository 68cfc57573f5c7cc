package leases_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
)

// A granted token is the lease's token from then on, and cannot be set
// again, nor once the token was asked for; a zxid below 1 is refused.
func TestGrant_FixesTheTokenOnce(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	l := newLease(t, c, zktest.UniquePath(t))
	require.ErrorIs(t, l.Grant(0), leases.ErrInvalidArgument)
	require.ErrorIs(t, l.Grant(-1), leases.ErrInvalidArgument)
	require.NoError(t, l.Grant(1<<40))
	require.ErrorIs(t, l.Grant(1<<41), leases.ErrInvalidArgument, "granted already")
	token, err := l.FencingToken(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(1<<40), token)
	require.NoError(t, l.Release(ctx))

	asked := newLease(t, c, zktest.UniquePath(t))
	_, err = asked.FencingToken(ctx)
	require.NoError(t, err)
	require.ErrorIs(t, asked.Grant(1<<40), leases.ErrInvalidArgument, "the token was asked for")
	require.NoError(t, asked.Release(ctx))
}

// A lease that is lost gives ErrLost for its token, granted or not.
func TestGrant_LostLeaseHasNoToken(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	l := newLease(t, c, zktest.UniquePath(t))
	require.NoError(t, l.Grant(1<<40))
	lost := l.Lost()
	require.NoError(t, c.Delete(ctx, l.Node(), -1))
	waitClosed(t, lost, 10*time.Second, "the lease's loss")
	_, err := l.FencingToken(ctx)
	require.ErrorIs(t, err, leases.ErrLost)
}
