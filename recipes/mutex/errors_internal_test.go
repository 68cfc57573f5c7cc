package mutex

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
)

// A release whose session changed is lost, and its message names the
// library once, not at each wrapped sentinel.
func TestFinishError_NamesTheLibraryOnce(t *testing.T) {
	err := finishError(fmt.Errorf("framework: delete /a/lock: %w", framework.ErrSessionChanged))
	require.ErrorIs(t, err, ErrLost)
	require.ErrorIs(t, err, framework.ErrSessionChanged)
	assert.Equal(t, 1, strings.Count(err.Error(), "zkrecipes: "), err.Error())

	other := finishError(errors.New("framework: delete /a/lock: zk: connection closed"))
	require.NotErrorIs(t, other, ErrLost)
	assert.Contains(t, other.Error(), "deletion continues in the background")
}
