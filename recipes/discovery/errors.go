package discovery

import (
	"errors"

	"github.com/zkrecipes/zkrecipes"
)

// Sentinel errors. ErrInvalidArgument and ErrClosed are the zkrecipes
// package's, so that errors.Is works with the same name across the recipes.
var (
	// ErrMalformedInstance is returned when data is not a service instance
	// as Curator's JsonInstanceSerializer writes it: not a JSON object, a
	// known field of the wrong JSON type, an unknown service type, or a
	// payload that does not decode into the Instance's payload type. A
	// reader of many instances (a service cache) skips such a node.
	ErrMalformedInstance = errors.New("discovery: malformed service instance")
	// ErrNoInstance is returned by Provider.Instance when the service has
	// no instance that is up.
	ErrNoInstance = errors.New("discovery: no instance of the service")
	// ErrInvalidArgument is returned for a bad option, a bad uri spec, or
	// an instance that Curator could not read (a port outside Java's int).
	ErrInvalidArgument = zkrecipes.ErrInvalidArgument
	// ErrClosed is wrapped by the error of a call made on a closed client,
	// and returned by a Provider or ServiceCache after its Close or its
	// client's.
	ErrClosed = zkrecipes.ErrClosed
)
