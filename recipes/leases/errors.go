package leases

import (
	"errors"

	"github.com/zkrecipes/zkrecipes"
)

// Sentinel errors. ErrLost and ErrInvalidArgument are the zkrecipes package's,
// so that errors.Is works with the same names across the recipes.
var (
	// ErrLost says that a lease ended without a return: the connection was
	// suspended (standard error policy), the session was lost, the lease
	// node was deleted by someone else, or its maximum hold time passed.
	ErrLost = zkrecipes.ErrLost
	// ErrExpired is wrapped, together with ErrLost, by the error of a lease
	// that its maximum hold time (WithMaxHold) ended.
	ErrExpired = errors.New("leases: maximum hold time exceeded")
	// ErrInvalidArgument is returned for a nil client, a node without a
	// path or session, or a bad option.
	ErrInvalidArgument = zkrecipes.ErrInvalidArgument
)

// errReturned is the Err of a returned lease.
var errReturned = errors.New("leases: returned")
