package framework_test

import (
	"errors"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// A failed transaction's error says which operation the server failed at:
// its index, kind and path, besides the server's error.
func TestMulti_ErrorNamesTheFailingOp(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	existing, err := c.Create(ctx, dir+"/existing", nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)

	_, err = c.Multi(ctx,
		framework.CreateOp(dir+"/new", nil, framework.Persistent),
		framework.CreateOp(existing, nil, framework.Persistent),
		framework.SetOp(dir+"/new", nil, -1))
	require.ErrorIs(t, err, zk.ErrNodeExists)
	var op *framework.MultiOpError
	require.True(t, errors.As(err, &op), "%v", err)
	assert.Equal(t, framework.MultiOpError{Index: 1, Kind: "create", Path: existing, Err: zk.ErrNodeExists}, *op)
	assert.Contains(t, err.Error(), "op 1 (create "+existing+")")

	_, err = c.Multi(ctx, framework.GuardOp(dir+"/gone", -1), framework.SetOp(existing, nil, -1))
	require.ErrorIs(t, err, zkrecipes.ErrLost)
	require.ErrorIs(t, err, zk.ErrNoNode)
	require.True(t, errors.As(err, &op))
	assert.Equal(t, 0, op.Index)
	assert.Equal(t, "guard", op.Kind)
	assert.Contains(t, err.Error(), "op 0 (guard "+dir+"/gone)")
}
