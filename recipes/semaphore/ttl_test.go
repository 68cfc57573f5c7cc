package semaphore_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zkserver"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// A server without TTL support refuses the mode with a typed error, and
// the refused acquire leaves nothing behind.
func TestSemaphore_TTLOnAServerWithoutTTLGivesTheTypedError(t *testing.T) {
	server := zktest.NewServer(t, zkserver.WithoutTTL())
	c := connect(t, server.Addr())
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSemaphore(t, c, path, 2, semaphore.WithTTL(10*time.Second))

	l, err := s.Acquire(ctx)
	require.ErrorIs(t, err, leases.ErrTTLUnsupported)
	t.Log(err)
	assert.Nil(t, l)
	assert.Equal(t, 0, nodeCount(t, c, path), "no guard and no lease node is left")
}
