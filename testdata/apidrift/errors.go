package apidrift

import (
	"errors"

	"github.com/zkrecipes/zkrecipes"
)

var (
	// ErrHome is a sentinel where it belongs.
	ErrHome = errors.New("apidrift: home")
	// ErrStarted is the root's, as it should be.
	ErrStarted = zkrecipes.ErrStarted
	// ErrClosed is made again beside the root's.
	ErrClosed = errors.New("apidrift: closed")
)
