package barrier_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// What the package doc says a member costs, in requests.
func TestDouble_CostsAsDocumented(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, dir))
	d := newDouble(t, c, dir, 1)

	before := requests()
	first, err := d.Enter(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(4), requests()-before, "completing the count: a watch on ready, the create, a listing, ready's create")
	before = requests()
	second, err := d.Enter(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(2), requests()-before, "into an open barrier: a watch on ready, the create")

	leaving := leaveAsync(ctx, first)
	require.NoError(t, second.Leave(ctx))
	require.NoError(t, receive(t, leaving, "a leave"))

	alone, err := newDouble(t, c, zktest.UniquePath(t), 1).Enter(ctx)
	require.NoError(t, err)
	before = requests()
	require.NoError(t, alone.Leave(ctx))
	assert.Equal(t, int64(3), requests()-before, "the last to leave: a listing, its delete, ready's delete")
}
