package semaphore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
)

// A create whose session was lost is ErrLost, and its message names the
// library once, not at each wrapped sentinel.
func TestCreateError_NamesTheLibraryOnce(t *testing.T) {
	err := createError(fmt.Errorf("framework: multi /s/leases: %w", framework.ErrSessionChanged))
	require.ErrorIs(t, err, ErrLost)
	require.ErrorIs(t, err, framework.ErrSessionChanged)
	assert.Equal(t, 1, strings.Count(err.Error(), "zkrecipes: "), err.Error())
}
