package watches

import "github.com/go-zookeeper/zk"

// Subscriber is a persistent watch of the table: the framework's Watch.
// The table compares Subscribers with ==, so each must be comparable and
// stand for one watch.
type Subscriber interface {
	// Key is the server path and mode the watch is of; it never changes.
	Key() Key
	// Deliver hands the watch an event. It must not block: it runs on the
	// goroutine that reads the connection.
	Deliver(Event)
	// End ends the watch with err.
	End(err error)
}

// Event is what the table tells a Subscriber.
type Event struct {
	Type EventType
	// Path is the server path the event is of: the watched one for
	// Interrupted, Resumed and SessionChanged.
	Path string
	// Zxid, of Resumed and SessionChanged, is the last zxid the client had
	// seen before the watch was set again; zero for the others.
	Zxid int64
}

// EventType is what an Event says: a node event as the server sends it,
// or news of the connection.
type EventType int32

// The types of events.
const (
	NodeCreated         = EventType(zk.EventNodeCreated)
	NodeDeleted         = EventType(zk.EventNodeDeleted)
	NodeDataChanged     = EventType(zk.EventNodeDataChanged)
	NodeChildrenChanged = EventType(zk.EventNodeChildrenChanged)
	// Interrupted: the connection ended; the watch is not set again yet.
	Interrupted EventType = -100
	// Resumed: the watch is set again in the same session.
	Resumed EventType = -101
	// SessionChanged: the watch is set again in a new session.
	SessionChanged EventType = -102
)
