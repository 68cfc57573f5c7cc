package sharedcount

import (
	"errors"

	"github.com/zkrecipes/zkrecipes"
)

// Sentinel errors. All but ErrMalformedCount are the zkrecipes package's,
// so that errors.Is works with the same name across the recipes.
var (
	// ErrMalformedCount is returned when the count node's data is not a
	// 4-byte big-endian integer: it was not written as a shared count.
	ErrMalformedCount = errors.New("sharedcount: malformed count node (want 4 bytes)")
	// ErrInvalidArgument is returned for a nil client, a bad path or a bad
	// option, before anything is sent to the server.
	ErrInvalidArgument = zkrecipes.ErrInvalidArgument
	// ErrOutcomeUnknown is returned by a write whose answer was lost when
	// the client cannot tell whether the server applied it: read the count
	// to decide what to do next.
	ErrOutcomeUnknown = zkrecipes.ErrOutcomeUnknown
	// ErrClosed is wrapped by the error of a call made on a closed client,
	// and ends a Watch whose client was closed.
	ErrClosed = zkrecipes.ErrClosed
)
