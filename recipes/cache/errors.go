package cache

import (
	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/framework"
)

// Sentinel errors, shared with the other recipes and the framework, so
// that errors.Is works with the same name everywhere.
var (
	// ErrInvalidArgument is returned for a nil client, a bad path or a bad
	// option, before anything is sent to the server.
	ErrInvalidArgument = zkrecipes.ErrInvalidArgument
	// ErrClosed is wrapped by Start after Close, and by Err once the cache
	// or its client was closed.
	ErrClosed = framework.ErrClosed
)
