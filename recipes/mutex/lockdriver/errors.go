package lockdriver

import "github.com/zkrecipes/zkrecipes"

// Sentinel errors of a Driver's verdict: the zkrecipes package's, under
// the same names.
var (
	// ErrNodeMissing is returned by a Driver when the caller's own node is
	// not among the children. A lock built on the engine queues again when
	// its node goes missing, as often as the client's retry policy allows,
	// and then fails with it.
	ErrNodeMissing = zkrecipes.ErrNodeMissing
	// ErrInvalidArgument is wrapped by a Driver's error for a node that
	// carries none of the lock's names: such a node never holds.
	ErrInvalidArgument = zkrecipes.ErrInvalidArgument
)
