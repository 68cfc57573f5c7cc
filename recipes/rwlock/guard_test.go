package rwlock_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
)

// A read hold and a write hold each guard a write while they last, and
// guard nothing once released.
func TestGuard_ReadAndWriteHoldsGuardWrites(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	config, err := c.Create(ctx, path+"-config", []byte("v0"), framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	rw := newRW(t, c, path)

	for name, l := range map[string]*rwlock.Lock{"read": rw.ReadLock(), "write": rw.WriteLock()} {
		t.Run(name, func(t *testing.T) {
			h, err := l.Acquire(ctx)
			require.NoError(t, err)
			taken := h.Guard()
			_, err = c.Multi(ctx, taken, framework.SetOp(config, []byte(name), -1))
			require.NoError(t, err)

			require.NoError(t, h.Release(ctx))
			_, err = c.Multi(ctx, taken, framework.SetOp(config, []byte("stale"), -1))
			require.ErrorIs(t, err, rwlock.ErrLost)
			assert.Contains(t, err.Error(), h.Node())
			data, _, err := c.Get(ctx, config)
			require.NoError(t, err)
			assert.Equal(t, name, string(data))
		})
	}
}

// A read hold taken by downgrading guards writes after the write hold is
// released, whose own guard then fails.
func TestGuard_DowngradedReadHoldGuardsWrites(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	config, err := c.Create(ctx, path+"-config", []byte("v0"), framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	rw := newRW(t, c, path)
	w, err := rw.WriteLock().Acquire(ctx)
	require.NoError(t, err)
	r, err := rw.ReadLock().Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, w.Release(ctx))

	_, err = c.Multi(ctx, w.Guard(), framework.SetOp(config, []byte("stale"), -1))
	require.ErrorIs(t, err, rwlock.ErrLost)
	_, err = c.Multi(ctx, r.Guard(), framework.SetOp(config, []byte("read"), -1))
	require.NoError(t, err)
	require.NoError(t, r.Release(ctx))
}
