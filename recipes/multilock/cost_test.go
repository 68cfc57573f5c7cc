package multilock_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/multilock"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// The multi-lock sends nothing of its own: n free mutexes cost 3n
// requests, and Lost one watch per part that was not waited for.
func TestMultiLock_CostsWhatItsPartsCost(t *testing.T) {
	addr, requests := zktest.Counted(t)
	c := connect(t, addr)
	ctx := testContext(t)
	base := zktest.UniquePath(t)
	var parts []multilock.Part
	for _, name := range []string{"a", "b"} {
		// A node of another name keeps the container directory from being
		// reaped between the acquires.
		_, err := c.Create(ctx, base+"/"+name+"/keep", nil, framework.Persistent, framework.WithParents())
		require.NoError(t, err)
		m, err := mutex.New(c, base+"/"+name)
		require.NoError(t, err)
		parts = append(parts, multilock.Mutex(m))
	}
	ml, err := multilock.New(parts...)
	require.NoError(t, err)

	before := requests()
	h, err := ml.Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, h.Release(ctx))
	assert.Equal(t, before+6, requests(), "create, getChildren and delete per part")

	h, err = ml.Acquire(ctx)
	require.NoError(t, err)
	before = requests()
	h.Lost()
	require.Eventually(t, func() bool { return requests() == before+2 }, 10*time.Second, 10*time.Millisecond, "one watch per part")
	require.NoError(t, h.Release(ctx))
}
