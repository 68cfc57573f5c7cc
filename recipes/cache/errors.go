package cache

import "github.com/zkrecipes/zkrecipes"

// Sentinel errors, the zkrecipes package's, so that errors.Is works with
// the same name across the recipes.
var (
	// ErrInvalidArgument is returned for a nil client, a bad path or a bad
	// option, before anything is sent to the server.
	ErrInvalidArgument = zkrecipes.ErrInvalidArgument
	// ErrStarted is returned by a second Start.
	ErrStarted = zkrecipes.ErrStarted
	// ErrClosed is returned by Start and AwaitInitialized after Close, and
	// wrapped by Err once the cache's client was closed under it.
	ErrClosed = zkrecipes.ErrClosed
)
