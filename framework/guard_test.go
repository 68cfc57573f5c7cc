package framework_test

import (
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// A transaction that a guard fails is the loss of a hold: its error wraps
// ErrLost and the server's error, and names the guarded path; what the
// transaction would have written is not.
func TestMulti_FailedGuardIsALossNamingThePath(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	held, err := c.Create(ctx, dir+"/held", nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	config, err := c.Create(ctx, dir+"/config", []byte("v0"), framework.Persistent)
	require.NoError(t, err)

	_, err = c.Multi(ctx, framework.GuardOp(held, 0), framework.SetOp(config, []byte("v1"), -1))
	require.NoError(t, err, "the guard holds")

	_, err = c.Multi(ctx, framework.GuardOp(held, 3), framework.SetOp(config, []byte("stale"), -1))
	require.ErrorIs(t, err, zkrecipes.ErrLost, "another version")
	assert.ErrorIs(t, err, zk.ErrBadVersion)
	assert.Contains(t, err.Error(), held)

	require.NoError(t, c.Delete(ctx, held, -1))
	results, err := c.Multi(ctx, framework.SetOp(config, []byte("stale"), -1), framework.GuardOp(held, -1))
	require.ErrorIs(t, err, zkrecipes.ErrLost, "the node is gone")
	assert.ErrorIs(t, err, zk.ErrNoNode)
	assert.Contains(t, err.Error(), held)
	require.Len(t, results, 2)
	assert.ErrorIs(t, results[1].Err, zk.ErrNoNode)

	data, _, err := c.Get(ctx, config)
	require.NoError(t, err)
	assert.Equal(t, "v1", string(data), "no failed transaction wrote")
}

// A transaction that fails elsewhere than at a guard is no loss: a user's
// CheckOp, a conflict after a guard that held, or a failure before the
// guard was reached.
func TestMulti_OtherFailuresAreNoLoss(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	held, err := c.Create(ctx, dir+"/held", nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	missing := dir + "/missing"

	cases := map[string][]framework.Op{
		"a user's check":          {framework.CheckOp(missing, -1), framework.SetOp(held, nil, -1)},
		"a conflict after guard":  {framework.GuardOp(held, -1), framework.SetOp(held, nil, 7)},
		"a failure before guards": {framework.CheckOp(missing, -1), framework.GuardOp(missing, -1)},
	}
	for name, ops := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := c.Multi(ctx, ops...)
			require.Error(t, err)
			assert.NotErrorIs(t, err, zkrecipes.ErrLost)
		})
	}
}

// A guard on a bad path is refused before anything is sent.
func TestMulti_GuardOnABadPathIsRefused(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	_, err := c.Multi(testContext(t), framework.GuardOp("no-slash", -1))
	require.ErrorIs(t, err, framework.ErrInvalidPath)
	assert.NotErrorIs(t, err, zkrecipes.ErrLost)
}
