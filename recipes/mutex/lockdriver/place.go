package lockdriver

import (
	"context"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Place says where an acquire of the owner in ctx queues. With ok, the
// acquire takes the place of a node the same owner holds on another lock in
// the same directory (see Spot). Without ok, the acquire queues as usual.
// An error fails the acquire.
type Place func(ctx context.Context) (at Spot, ok bool, err error)

// Spot is the place of a node that an acquire takes (see mutex.WithPlace).
type Spot struct {
	// Node is the path of the node whose place is taken: the new node is
	// created only while it exists.
	Node string
	// Sequence is Node's sort key, which the new node's name ends with.
	Sequence string
	// Session is Node's session; the new node is created in it.
	Session *framework.Session
}

// Turn makes an owner's release wait for whatever else the owner does on
// a group of locks (see mutex.WithTurn), and returns the function that
// ends the release's turn.
type Turn func(owner any) (end func())
