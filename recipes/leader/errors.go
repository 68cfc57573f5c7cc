package leader

import (
	"errors"

	"github.com/zkrecipes/zkrecipes"
)

// Sentinel errors: those every recipe shares are the zkrecipes package's,
// under the same names, so errors.Is works across the recipes.
var (
	// ErrLost says that a term of leadership ended without the participant
	// giving it up: the connection was suspended (standard error policy),
	// the session lease ran out or the session was lost, or the
	// participant's node was deleted by someone else.
	ErrLost = zkrecipes.ErrLost
	// ErrInvalidArgument is returned for a nil client, a bad path,
	// participant id or option, before anything is sent to the server.
	ErrInvalidArgument = zkrecipes.ErrInvalidArgument
	// ErrUnreachable is returned when a wait's time ran out while the
	// server could not be reached.
	ErrUnreachable = zkrecipes.ErrUnreachable
	// ErrNoLeader is returned by Leader when no participant leads: the
	// election has no node. It is an answer, not a failure.
	ErrNoLeader = errors.New("leader: no leader")
	// ErrClosed is returned by a call on a participant that has been
	// closed, and is the cause (Err) of a term ended by Close. A call on,
	// or a term of, a participant whose client was closed wraps it too.
	ErrClosed = zkrecipes.ErrClosed
	// ErrUnhealthy is wrapped by the error of Healthy: the participant
	// believes it leads past the point where the server may let another
	// lead, or a selector's function has not stopped when asked.
	ErrUnhealthy = errors.New("leader: participant unhealthy")
	// ErrResigned is the cause (Err) of a term ended by Resign.
	ErrResigned = errors.New("leader: leadership resigned")
	// ErrStopTimeout is returned by Selector.Close when a function it
	// stopped has not returned within the stop timeout (WithStopTimeout).
	// Its node stays, and no successor leads, until it does.
	ErrStopTimeout = errors.New("leader: the function did not return within the stop timeout")
)

// Errors of a participant's life.
var (
	// ErrNotStarted is returned by a call that needs a started
	// participant, on one that has not been started.
	ErrNotStarted = errors.New("leader: participant not started")
	// ErrStarted is returned by a second Start.
	ErrStarted = zkrecipes.ErrStarted
)
