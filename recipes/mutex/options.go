package mutex

import (
	"context"
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/recipe"
)

// Option configures a Mutex.
type Option func(*options) error

type options struct {
	data   []byte
	policy framework.ErrorPolicy
	revoke func(*Hold)
	place  Place
	// maxHold bounds a hold between renewals (WithMaxHold, bound.go).
	maxHold time.Duration
	name    string // begins the lock's error messages (WithName)
}

// Place says where an acquire of the owner in ctx queues. With ok, the
// acquire takes the place of a node the same owner holds on another lock in
// the same directory: sequence is the sort key of that node, and session
// its session. Without ok, the acquire queues as usual.
type Place func(ctx context.Context) (sequence string, session *framework.Session, ok bool)

// WithData sets the data of the lock nodes, shown to operators and to
// other participants. Ignored when WithRevocation is given: revocable lock
// nodes start empty, as Curator's do, so that a revocation request can be
// told apart. Default: empty.
func WithData(data []byte) Option {
	return func(o *options) error {
		o.data = append([]byte(nil), data...)
		return nil
	}
}

// WithErrorPolicy chooses when a hold counts as lost: at Suspended
// (framework.StandardErrorPolicy) or only at Lost
// (framework.SessionErrorPolicy). Default: framework.StandardErrorPolicy.
func WithErrorPolicy(p framework.ErrorPolicy) Option {
	return func(o *options) error {
		if err := recipe.CheckErrorPolicy(p, ErrInvalidArgument); err != nil {
			return err
		}
		o.policy = p
		return nil
	}
}

// WithRevocation makes holds revocable, as Curator's makeRevocable: when
// another party writes "__REVOKE__" into the holder's node (see Revoke),
// handler is called on a goroutine of its own with the hold. Revocation is
// cooperative: the handler decides whether to release. Each hold watches
// its node from the start (one request per acquire). Default: not
// revocable.
func WithRevocation(handler func(*Hold)) Option {
	return func(o *options) error {
		if handler == nil {
			return fmt.Errorf("%w: nil revocation handler", ErrInvalidArgument)
		}
		o.revoke = handler
		return nil
	}
}

// WithName names the lock at the start of its error messages, "mutex" by
// default. A recipe built on NewWithDriver gives its own name, so that its
// users read "rwlock: read lock: acquire /p: ..." rather than the name of
// the engine underneath.
func WithName(name string) Option {
	return func(o *options) error {
		if name == "" {
			return fmt.Errorf("%w: empty name", ErrInvalidArgument)
		}
		o.name = name
		return nil
	}
}

// WithPlace lets an owner that holds a node of another lock in the same
// directory take a hold at that node's place, as Curator's
// getSortingSequence does: when place answers ok, Acquire does not queue,
// but creates the plain ephemeral node <lock name><sequence>, protected, in
// the given session, and holds it at once. Only a lock whose Driver lets
// that place hold may use it: the read/write lock's downgrade, where the
// write holder's read node keeps the writer's place, so that no writer
// queued behind can get in. Default: every acquire queues.
func WithPlace(place Place) Option {
	return func(o *options) error {
		if place == nil {
			return fmt.Errorf("%w: nil place", ErrInvalidArgument)
		}
		o.place = place
		return nil
	}
}
