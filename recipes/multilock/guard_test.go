package multilock_test

import (
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/multilock"
)

// A transaction guarded by a multi-hold writes while every part holds;
// once any one part is lost (its node deleted by another client), the
// guarded write fails with ErrLost, names that part, and writes nothing.
func TestHold_GuardChecksEveryPart(t *testing.T) {
	for i := range 3 {
		c := connect(t, zktest.Servers(t))
		operator := connect(t, zktest.Servers(t))
		ctx := testContext(t)
		base := zktest.UniquePath(t)
		config := base + "-config"
		_, err := c.Create(ctx, config, []byte("v0"), framework.Persistent, framework.WithParents())
		require.NoError(t, err)
		h, err := newLocks(t, c, base).multi(t).Acquire(ctx)
		require.NoError(t, err)

		guard := h.Guards()
		require.Len(t, guard, len(h.Parts()))
		_, err = c.Multi(ctx, append(guard, framework.SetOp(config, []byte("v1"), -1))...)
		require.NoError(t, err, "every part holds")

		victim := h.Parts()[i].Node()
		require.NoError(t, operator.Delete(ctx, victim, -1))
		_, err = c.Multi(ctx, append(h.Guards(), framework.SetOp(config, []byte("v2"), -1))...)
		require.ErrorIs(t, err, multilock.ErrLost, "part %d is gone", i)
		require.ErrorIs(t, err, zk.ErrNoNode)
		assert.Contains(t, err.Error(), victim)
		data, _, err := operator.Get(ctx, config)
		require.NoError(t, err)
		assert.Equal(t, "v1", string(data), "the write of a lost hold landed")
		_ = h.Release(ctx)
	}
}
