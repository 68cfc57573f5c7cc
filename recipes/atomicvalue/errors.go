package atomicvalue

import (
	"errors"

	"github.com/zkrecipes/zkrecipes"
)

// Sentinel errors. Those every recipe shares are the zkrecipes package's,
// under the same names, so that errors.Is works across the recipes.
var (
	// ErrMalformedValue is returned when a Long's node does not hold 8
	// bytes, or an Int's 4 (an empty node reads as 0, as Curator reads it):
	// it was not written as such a value. Nothing is written over it but
	// by ForceSet.
	ErrMalformedValue = errors.New("atomicvalue: malformed value node")
	// ErrOverflow is returned by an Add, Subtract, Increment or Decrement
	// whose result does not fit the number's type, where Curator would wrap
	// around. Nothing is written.
	ErrOverflow = errors.New("atomicvalue: result out of range")
	// ErrInvalidArgument is returned for a nil client, a bad path, a bad
	// chunk size or option, before anything is sent to the server.
	ErrInvalidArgument = zkrecipes.ErrInvalidArgument
	// ErrOutcomeUnknown is returned by an update whose write's answer was
	// lost when the client cannot tell whether the server applied it: the
	// write ran once or not at all. Read the value to learn where it stands;
	// trying again may count twice.
	ErrOutcomeUnknown = zkrecipes.ErrOutcomeUnknown
	// ErrClosed is wrapped by the error of a call made on a closed client,
	// or of an update whose client was closed while it waited for the
	// promotion's lock.
	ErrClosed = zkrecipes.ErrClosed
	// ErrUnreachable is wrapped by the error of an update promoted to the
	// lock whose lock timeout ran out while the server could not be
	// reached.
	ErrUnreachable = zkrecipes.ErrUnreachable
)
