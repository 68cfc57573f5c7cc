package recipe

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/framework"
)

func TestErrorf_NamesTheLibraryOnce(t *testing.T) {
	lost := errors.New("zkrecipes: lost")
	expired := errors.New("zkrecipes: bound passed without renewal")
	other := errors.New("zk: node does not exist")
	for _, tc := range []struct {
		err  error
		want string
	}{
		{Errorf("%w: %w: not renewed within %v", lost, expired, time.Second), "zkrecipes: lost: bound passed without renewal: not renewed within 1s"},
		{Errorf("leases: renew p: %w: session lost: %w", lost, expired), "leases: renew p: zkrecipes: lost: session lost: bound passed without renewal"},
		{Errorf("x: %w: %w", lost, other), "x: zkrecipes: lost: zk: node does not exist"},
		{Errorf("x: %w", lost), "x: zkrecipes: lost"},
	} {
		assert.Equal(t, tc.want, tc.err.Error())
		assert.ErrorIs(t, tc.err, lost)
	}
	assert.ErrorIs(t, Errorf("%w: %w", lost, expired), expired)
	assert.ErrorIs(t, Errorf("x: %w: %w", lost, other), other)
}

// A waiter whose session was lost fails with ErrLost, and its message
// names the library once.
func TestWaitError_LostSessionNamesTheLibraryOnce(t *testing.T) {
	err := WaitError(fmt.Errorf("framework: get /a: %w", framework.ErrSessionChanged), nil, errors.New("missing"))
	assert.ErrorIs(t, err, zkrecipes.ErrLost)
	assert.ErrorIs(t, err, framework.ErrSessionChanged)
	assert.Equal(t, "zkrecipes: lost: session lost while waiting: framework: get /a: session changed", err.Error())
}
