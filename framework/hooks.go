package framework

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// Hooks are the calls of a Client meant for authors of recipes, such as
// this library's mutex and semaphore: they expose the machinery that keeps
// a recipe's nodes exact under connection loss (a create's listing in its
// round trip, how many times a transaction went out, the clean-up of
// protected nodes whose fate is unknown). Applications need none of them.
// Aside is their companion for calls that cannot be cancelled.
type Hooks struct{ c *Client }

// Hooks returns the client's calls for recipe authors.
func (c *Client) Hooks() Hooks { return Hooks{c: c} }

// CreateProtectedAndList is CreateProtected that also lists the new node's
// parent in the same round trip: the listing is sent as soon as the create
// is on the wire, so the server answers it right after the create. A lock
// recipe, which must list the queue after queueing, saves a round trip.
//
// children is the parent's children, the new node among them, or nil when
// the listing could not ride along: the create had to be sent again (to
// make the parents first, or after a lost answer), the connection was not
// up, the client dials through a dialer of the caller's (WithZKOptions),
// which the listing cannot see, or ctx ended before the listing's answer
// came. The caller then lists for itself.
func (h Hooks) CreateProtectedAndList(ctx context.Context, path string, data []byte, mode CreateMode, opts ...CreateOption) (node Node, children []string, err error) {
	return h.c.createProtectedAndList(ctx, path, data, mode, opts...)
}

// WatchFunc is Client.Watch with the events handed to onEvent instead of
// Events (which is closed). onEvent is called in the server's order, on
// the goroutine that reads them from the connection, before the replies
// that follow them are handed on: it must return at once, and never block,
// call the client, or close the watch. Besides Watch's events, it gets
// WatchInterrupted at every new connection, before any reply on it. When
// the watch ends other than by Close (Err says why), onEnd, if not nil, is
// called once under the same rules; it may come before WatchFunc returns.
// Once Close has returned, neither is called again. A recipe that keeps
// state from the events (the mutex's view of its queue) can trust that
// state against the replies it reads, and saves two goroutine switches
// per event.
func (h Hooks) WatchFunc(ctx context.Context, path string, mode WatchMode, onEvent func(WatchEvent), onEnd func(error)) (*Watch, error) {
	if onEvent == nil {
		return nil, opError("watch", path, fmt.Errorf("%w: a nil onEvent", ErrInvalidArgument))
	}
	return h.c.watch(ctx, path, mode, onEvent, onEnd)
}

// CloseWatchAtOnce is w.Close, except that the server's watch, when no
// other Watch of the client has its path and mode, is removed at once
// instead of lingering a second: a Watch of them from now on costs an
// addWatch, sent once the removal is answered. A recipe that closes a
// watch it will not want again soon (the mutex's, behind a queue grown
// long) closes it so, lest the client go on hearing every change for the
// linger. Like Close, it does not wait for the server, and returns nil.
func (h Hooks) CloseWatchAtOnce(ctx context.Context, w *Watch) error {
	if w.c != h.c {
		return opError("close watch", w.path, fmt.Errorf("%w: a watch of another client", ErrInvalidArgument))
	}
	w.close(true)
	return nil
}

// Shared returns the value the client keeps under key, made by newValue
// if it keeps none: state that the recipes of one client share, such as
// the one watch of a lock's directory that every Mutex of that path
// follows. key must be comparable, of a type of the recipe's own.
// newValue may be called and its value dropped when two calls race, so
// it must only allocate. Forget drops the value once it is idle.
func (h Hooks) Shared(key any, newValue func() any) any {
	if v, ok := h.c.shared.Load(key); ok {
		return v
	}
	v, _ := h.c.shared.LoadOrStore(key, newValue())
	return v
}

// LoadShared returns the value Shared keeps under key, and whether it
// keeps one; it makes none. A recipe that only joins state made elsewhere
// (a waiter that follows a watch if one is set) looks it up with it, so
// that a key it never needs costs the client nothing.
func (h Hooks) LoadShared(key any) (any, bool) { return h.c.shared.Load(key) }

// Forget drops the value Shared keeps under key, if it is v: a later
// Shared makes a new one. A caller that still has v may go on using it
// alone.
func (h Hooks) Forget(key, v any) { h.c.shared.CompareAndDelete(key, v) }

// MultiSent is Client.Multi, and also says how many times the transaction
// was sent. More than once means that a run whose answer was lost was
// looked for and not found (only a transaction of protected ephemerals is
// sent again, see Client.Multi): it may still reach the server late, and
// the client then deletes its nodes by their ids, one and five seconds
// later. The count is exact when ctx cannot end; otherwise a run abandoned
// when ctx ended may still go out afterwards.
func (h Hooks) MultiSent(ctx context.Context, ops ...Op) (results []OpResult, sent int, err error) {
	return h.c.multiSent(ctx, ops...)
}

// ProtectedCleanup names the protected nodes DeleteProtected deletes.
type ProtectedCleanup struct {
	// Parent is the directory the nodes are in.
	Parent string
	// IDs are the protection ids: every child of Parent whose name carries
	// one of them is deleted...
	IDs []string
	// Keep: ...except the children named here.
	Keep map[string]bool
	// After, if not nil, delays the first look until it is closed (the end
	// of a call that may still create such nodes).
	After <-chan struct{}
	// LaterOnly skips the first look, for a caller that has just looked
	// and deleted itself.
	LaterOnly bool
}

// DeleteProtected deletes the children of p.Parent that carry one of p.IDs
// and are not in p.Keep, in the background: the nodes of a create or a
// transaction whose answer was lost. Like Client.DeleteInBackground, it
// retries through connection loss until it is done, fails with an error
// no retry cures, or the client is closed. A request whose connection was
// cut may still reach the server after the client has reconnected and
// looked, so the client looks again, one and five seconds later, and
// deletes what has turned up since. The returned channel is closed after
// the first look (at once with LaterOnly).
func (h Hooks) DeleteProtected(p ProtectedCleanup) (<-chan struct{}, error) {
	c := h.c
	sp, err := c.cleanupPath(p.Parent)
	if err != nil {
		return nil, err
	}
	if !p.LaterOnly {
		return c.findAndDeleteInBackground(sp, p.IDs, p.Keep, p.After), nil
	}
	c.lookLater(sp, findAndDeleteLook(sp, p.IDs, p.Keep))
	now := make(chan struct{})
	close(now)
	return now, nil
}

// RetryWait asks the client's retry policy whether a recipe may try again
// after attempt failed tries (counted from 0) since start, and if so,
// sleeps as long as the policy says. It returns nil to go on; otherwise
// ErrRetriesExhausted, the error of ctx, or ErrClosed. A recipe bounds
// with it what the client's calls cannot see, such as queueing again after
// its own node vanished.
func (h Hooks) RetryWait(ctx context.Context, attempt int, start time.Time) error {
	return h.c.retryWait(ctx, attempt, start)
}

// Logger returns the logger of a recipe, the client's logger (WithLogger)
// with the attribute component=zkrecipes/<component>, so that each recipe
// logs under its own name ("leader", "mutex") rather than the client's
// ("framework"). The client keeps one logger per component: asking again
// allocates nothing.
func (h Hooks) Logger(component string) *slog.Logger {
	if l, ok := h.c.loggers.Load(component); ok {
		return l.(*slog.Logger)
	}
	l, _ := h.c.loggers.LoadOrStore(component, h.c.cfg.logger.With("component", "zkrecipes/"+component))
	return l.(*slog.Logger)
}
