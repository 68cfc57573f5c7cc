package discovery

// EventType says what changed in a service's instances.
type EventType int

const (
	// Registered: an instance came, at the first load or later.
	Registered EventType = iota + 1
	// Updated: an instance's data changed.
	Updated
	// Unregistered: an instance went, or its node no longer holds an
	// instance.
	Unregistered
	// Initialized: the first complete read of the service is done; it
	// comes once, after the Registered events of the instances it found.
	Initialized
)

// String returns the event type's name in lower case, as logs print it.
func (t EventType) String() string {
	switch t {
	case Registered:
		return "registered"
	case Updated:
		return "updated"
	case Unregistered:
		return "unregistered"
	case Initialized:
		return "initialized"
	}
	return "unknown"
}

// Event is one change of a service's instances, as a ServiceCache has
// applied it: Instances in a listener sees the change.
type Event[T any] struct {
	Type EventType
	// ID is the instance's id (its node's name); empty for Initialized.
	ID string
	// Instance is the instance as it is now: zero for Unregistered and
	// Initialized.
	Instance Instance[T]
}
