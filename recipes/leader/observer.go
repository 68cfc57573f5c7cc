package leader

import (
	"context"
	"fmt"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Observer reads an election without taking part in it: who leads, who
// waits, and every change of leader. It reads Curator's participants as
// its own. It is safe for concurrent use and holds no state on the server.
type Observer struct {
	e election
}

// ObserveSelector makes the Observer read the election of Selectors (and
// of Curator LeaderSelectors): a mutex at the path, whose nodes are
// _c_<uuid>-lock-<seq>, ordered as Curator's LeaderSelector orders them.
// Default: the election of Latches (and of Curator LeaderLatches), whose
// nodes are _c_<uuid>-latch-<seq>, ordered as Curator's LeaderLatch
// orders them. An observer's option only.
func ObserveSelector() Option {
	return func(o *options) error {
		o.lockName = selectorLockName
		o.parts.Configures("ObserveSelector", observerPart)
		return nil
	}
}

// NewObserver returns an Observer of the election at path. It checks its
// arguments, with errors wrapping ErrInvalidArgument, and does no I/O.
func NewObserver(client *framework.Client, path string, opts ...Option) (*Observer, error) {
	if err := recipe.CheckPath(client, path, ErrInvalidArgument); err != nil {
		return nil, fmt.Errorf("leader: observer: %w", err)
	}
	o, err := recipe.Options(opts, ErrInvalidArgument)
	if err == nil {
		err = o.parts.Refuse(observerPart, ErrInvalidArgument)
	}
	if err != nil {
		return nil, fmt.Errorf("leader: observer: %w", err)
	}
	if o.lockName == "" {
		o.lockName = latchLockName
	}
	return newObserver(client, path, o.lockName), nil
}

// newObserver is the Observer of the election at path whose nodes are
// named lockName: a Latch's or a Selector's own Observer.
func newObserver(client *framework.Client, path, lockName string) *Observer {
	return &Observer{e: election{client: client, path: path, lockName: lockName}}
}

// Leader returns the leading participant: the first node in Curator's
// order that is still there when read, as Curator's getLeader. When the
// election has no node it returns ErrNoLeader, never Curator's made-up
// participant with an empty id. Two requests when the leader stays put:
// the listing and the read of the first node's data.
func (o *Observer) Leader(ctx context.Context) (Participant, error) {
	return o.e.leader(ctx)
}

// Participants returns every participant of the election in exactly the
// order of Curator's getParticipants, the first marked as the leader;
// none when the election has no node. A node deleted between the listing
// and the read of its data is left out, as Curator leaves it out. It takes
// two requests and two round trips: the listing, then one multi-read of
// every node's data (before ZooKeeper 3.6, a read per node, sent
// together).
func (o *Observer) Participants(ctx context.Context) ([]Participant, error) {
	return o.e.participants(ctx)
}

// Path returns the election's path.
func (o *Observer) Path() string { return o.e.path }
