package leases

import (
	"errors"
	"fmt"

	"github.com/zkrecipes/zkrecipes"
)

// Sentinel errors. All but ErrTTLUnsupported are the zkrecipes package's,
// so that errors.Is works with the same names across the recipes.
var (
	// ErrLost says that a lease ended without a release: the connection was
	// suspended (standard error policy), the session was lost, the lease
	// node was deleted by someone else, or its maximum hold time passed.
	ErrLost = zkrecipes.ErrLost
	// ErrExpired is wrapped, together with ErrLost, by the error of a lease
	// whose bound passed without a renewal: its maximum hold time
	// (WithMaxHold), or the time to live of a TTL lease, on the holder's
	// own clock. The holder's process gave the lease up itself.
	ErrExpired = zkrecipes.ErrExpired
	// ErrReleased is wrapped by the error of a renewal of a released lease.
	ErrReleased = zkrecipes.ErrReleased
	// ErrTTLUnsupported is returned when the server refuses TTL nodes: it
	// runs without extendedTypesEnabled=true (a ZooKeeper 3.5.3 or later
	// option, off by default), or is older.
	ErrTTLUnsupported = errors.New("leases: the server does not support TTL nodes (extendedTypesEnabled=true is needed)")
	// ErrInvalidArgument is returned for a nil client, a node without a
	// path or session, a bad option, or a renewal of a lease without a
	// bound.
	ErrInvalidArgument = zkrecipes.ErrInvalidArgument
	// ErrClosed is wrapped by the error of a call made on a closed client.
	ErrClosed = zkrecipes.ErrClosed
	// ErrTakenOver wraps ErrLost: another holder took the TTL lease over
	// (Resume), so this Lease no longer holds it. It is the loss of the
	// earlier holder, and the error of a Resume that lost the race for the
	// lease to another Resume.
	ErrTakenOver = fmt.Errorf("%w: taken over by another holder", ErrLost)
)

// errReleased is the Err of a released lease.
var errReleased = fmt.Errorf("leases: %w: released", ErrReleased)
