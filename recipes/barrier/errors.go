package barrier

import "github.com/zkrecipes/zkrecipes"

// Sentinel errors, the zkrecipes package's, so that errors.Is works with
// the same name across the recipes.
var (
	// ErrInvalidArgument is returned for a nil client, a bad path, a member
	// count below one or a bad option, before anything is sent to the
	// server.
	ErrInvalidArgument = zkrecipes.ErrInvalidArgument
	// ErrLost is returned by an Enter or a Leave whose member's node went
	// before the member left: with its session, or deleted by someone else.
	// The other members no longer count it.
	ErrLost = zkrecipes.ErrLost
	// ErrReleased is returned by a Leave of a member that has left (or is
	// leaving) already.
	ErrReleased = zkrecipes.ErrReleased
	// ErrClosed is wrapped by the error of a call made on a closed client,
	// or waiting when it was closed: then not ErrLost, though the close
	// ended the session.
	ErrClosed = zkrecipes.ErrClosed
)
