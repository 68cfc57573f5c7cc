package node

// EventType says what happened to a Node's node.
type EventType int

const (
	// Created: the node was created, the first time or again (after its
	// session was lost, or after someone deleted it). Event.Path is its
	// path: a sequential node's, with its sequence.
	Created EventType = iota + 1
	// Failed: a create failed in a way that trying again will not cure
	// by itself (no permission, a bad ACL, a node of another owner in
	// the way); the node tries again when the server tells of a change,
	// and at each reconnect. Event.Err says why.
	Failed
)

// String returns the event type's name in lower case, as logs print it.
func (t EventType) String() string {
	switch t {
	case Created:
		return "created"
	case Failed:
		return "failed"
	}
	return "unknown"
}

// Event is one thing that happened to a Node's node.
type Event struct {
	Type EventType
	Path string // the node's path, relative to the client's namespace
	Err  error  // for Failed
}

// Listener hears the events of a Node, one at a time and in order, on
// the node's own goroutine.
type Listener func(Event)
