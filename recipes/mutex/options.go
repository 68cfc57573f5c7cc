package mutex

import (
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/recipes/mutex/lockdriver"
)

// Option configures a Mutex.
type Option func(*options) error

type options struct {
	data   []byte
	policy framework.ErrorPolicy
	revoke func(*Hold)
	place  lockdriver.Place
	turn   lockdriver.Turn
	// maxHold bounds a hold between renewals (WithMaxHold, bound.go).
	maxHold time.Duration
	name    string // begins the lock's error messages (WithName)
	kind    string // the recipe in observer events and logs (WithKind)
	what    string // a hold in log lines (WithKind)
	kindSet bool
	keep    bool         // a lost hold's node waits for the release (WithNodeKeptOnLoss)
	logger  *slog.Logger // nil: the client's, under the kind's component (WithLogger)
	// orderOnly: a waiter does not watch its own node (WithOrderOnly).
	orderOnly bool
	// unobserved: acquires and holds are not reported (WithUnobserved).
	unobserved bool
	// watchedQueue is the longest queue a waiter follows through the
	// directory watch (WithWatchedQueue); 0: shortQueue. An int32 beside
	// the flags: it adds nothing to a Mutex's size.
	watchedQueue int32
}

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
// (framework.SessionErrorPolicy). Under either, the hold also ends when
// its session's lease runs out (framework.Session.LeaseDeadline), before
// the server can expire the session. Default:
// framework.StandardErrorPolicy.
func WithErrorPolicy(p framework.ErrorPolicy) Option {
	return func(o *options) error { return recipe.SetErrorPolicy(&o.policy, p, ErrInvalidArgument) }
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

// WithNodeKeptOnLoss leaves the node of a hold that is lost while its
// session lives (a suspension, the lease run out) in place until the
// hold's release, which then deletes it, instead of deleting it as soon as
// the connection is back. The node keeps every waiter out meanwhile, as
// long as the session lasts. It is for recipes that end a hold only once
// the work it guards has stopped, such as the leader package's Selector,
// whose function may still run after the loss was signalled. Default: the
// node of a lost hold is deleted as soon as it can be.
func WithNodeKeptOnLoss() Option {
	return func(o *options) error {
		o.keep = true
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
// the given session, and holds it at once. The node is created in one
// transaction with a check that the node whose place it takes still
// exists, so no place is taken after that node is gone (and someone queued
// behind it may hold); then Acquire fails with an error wrapping ErrLost
// (and the ctx's error too when the ctx ended as that answer came).
// Only a lock whose lockdriver.Driver lets that place hold may use it: the read/write
// lock's downgrade, where the write holder's read node keeps the writer's
// place, so that no writer queued behind can get in. Default: every
// acquire queues.
func WithPlace(place lockdriver.Place) Option {
	return func(o *options) error {
		if place == nil {
			return fmt.Errorf("%w: nil place", ErrInvalidArgument)
		}
		o.place = place
		return nil
	}
}

// WithTurn makes every release of the lock, Mutex.Release and
// Hold.Release alike, run in its owner's turn: turn is called with the
// owner before the release changes anything, and the function it returns
// once the release is done. Locks that act together for one owner (the
// read/write lock's two) use it so that an owner's release and its other
// calls do not interleave. Default: releases take no turn.
func WithTurn(turn lockdriver.Turn) Option {
	return func(o *options) error {
		if turn == nil {
			return fmt.Errorf("%w: nil turn", ErrInvalidArgument)
		}
		o.turn = turn
		return nil
	}
}

// WithOrderOnly is for a lock that only orders the recipe's callers and
// whose safety rests on something else, such as the lock the semaphore
// takes to count its leases: the count, not that lock, keeps the leases
// within the maximum, and the lock only keeps two acquirers from counting
// at once. A waiter of such a lock does not watch its own node while it
// waits on one-shot watches (on a server before ZooKeeper 3.6, or behind a
// long queue), which saves a request and a notification per contended
// acquisition. The price: a waiter whose node someone else deletes while
// it waits may take its turn without a node, alongside the next in line.
// The loss of its session is still seen. Default: a waiter watches its
// node, and no two holds ever overlap.
func WithOrderOnly() Option {
	return func(o *options) error {
		o.orderOnly = true
		return nil
	}
}

// WithWatchedQueue sets the longest queue (n nodes or fewer in the lock's
// directory, the waiter's own included) that a waiter follows through the
// directory's watch, on ZooKeeper 3.6+: there a contended acquisition
// costs two requests, the create and the delete, but the server tells
// every client that waits of every create and delete, about 2n
// notifications per acquisition. Behind a longer queue a waiter waits on
// one-shot watches of the nodes in front, which costs four or five
// requests more and about two notifications. It is for a recipe whose
// acquisition costs writes besides the lock's, such as the semaphore's
// guard, for which the requests saved outweigh the notifications over a
// longer queue than for a lock alone. n below 1 is rejected with
// ErrInvalidArgument. Default: 8.
func WithWatchedQueue(n int) Option {
	return func(o *options) error {
		if n < 1 || n > math.MaxInt32 {
			return fmt.Errorf("%w: watched queue of %d, want 1 to %d", ErrInvalidArgument, n, math.MaxInt32)
		}
		o.watchedQueue = int32(n)
		return nil
	}
}

// WithKind names what the lock serves in what it reports, for recipes
// built on it. kind is the recipe in the client's observer's events
// (framework.AcquireEvent.Recipe, framework.HoldEvent.Recipe), such as
// "rwlock.read"; up to its first dot, it is the component of the lock's
// log lines (zkrecipes/rwlock). what names a hold in log lines ("read
// lock hold lost"); an empty what leaves the telling of a hold's loss to
// the recipe on the lock, as the leader package tells of a lost term.
// An empty kind is rejected with ErrInvalidArgument. Default "mutex" and
// "lock hold".
func WithKind(kind, what string) Option {
	return func(o *options) error {
		if kind == "" {
			return fmt.Errorf("%w: empty kind", ErrInvalidArgument)
		}
		o.kind, o.what, o.kindSet = kind, what, true
		return nil
	}
}

// WithUnobserved keeps the lock's acquires and holds out of the client's
// observer's events (framework.Observer); its server calls are reported
// still. It is for a lock that is a part of another recipe's acquire,
// such as the guard the semaphore takes while it counts its leases: the
// recipe reports that acquire as its own, and a lock the user never made
// would otherwise show up beside it as a recipe, its wait counted twice.
// Default: reported, under the kind (WithKind).
func WithUnobserved() Option {
	return func(o *options) error {
		o.unobserved = true
		return nil
	}
}

// WithLogger sets the logger of the lock's own messages (a hold lost, a
// clean-up left to the background). A nil logger is rejected with
// ErrInvalidArgument. Default: the client's logger, with the component
// zkrecipes/mutex, or the recipe the lock serves (WithKind) (framework.Hooks.Logger).
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error { return recipe.SetLogger(&o.logger, l, ErrInvalidArgument) }
}
