package queue

import (
	"errors"

	"github.com/zkrecipes/zkrecipes"
)

// Sentinel errors. Those that every recipe shares are the zkrecipes
// package's, so that errors.Is works with the same name across the
// recipes.
var (
	// ErrEmpty is returned by Simple's Poll and Peek when the queue holds
	// no item (Curator's null, or its NoSuchElementException of element
	// and remove).
	ErrEmpty = errors.New("queue: empty")
	// ErrMalformed says that a queue node's data is not in Curator's
	// format (see Decode), or that the Codec could not decode an item of
	// it. Consumers leave such a node where it is, and log it.
	ErrMalformed = errors.New("queue: malformed queue node")
	// ErrInvalidArgument is returned for a nil client or codec, a bad
	// path, count, priority, time, id or option, and an item too large for
	// one node, before anything is sent to the server.
	ErrInvalidArgument = zkrecipes.ErrInvalidArgument
	// ErrOutcomeUnknown is returned by a put or a take whose answer was
	// lost when the client cannot prove whether the server applied it: it
	// ran once or not at all, never twice.
	ErrOutcomeUnknown = zkrecipes.ErrOutcomeUnknown
	// ErrUnreachable is returned by Simple's Poll whose wait ran out while
	// the server could not be reached: nobody saw the queue empty.
	ErrUnreachable = zkrecipes.ErrUnreachable
	// ErrStarted is returned by a second Start of a Consumer.
	ErrStarted = zkrecipes.ErrStarted
	// ErrClosed is returned by a Start after Close, by a put on a closed
	// queue, and wrapped by Err of a consumer whose client was closed.
	ErrClosed = zkrecipes.ErrClosed
)
