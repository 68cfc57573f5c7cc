package chaos

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// Latch is the Recipe of the leader package's Latch: each client's Locker
// is a started latch; a hold is one term, from Await's return until Lost
// closes, and a release resigns (the latch queues again at the tail).
type Latch struct {
	// Policy is the latch's error policy; the zero value is the standard one.
	Policy framework.ErrorPolicy
}

// Name returns "leader-latch".
func (Latch) Name() string { return "leader-latch" }

// Limit returns 1: one leader at a time.
func (Latch) Limit() int { return 1 }

// New returns a Locker on a latch of its own, started by the first
// acquire and left by Close.
func (r Latch) New(client *framework.Client, i int, path string) (Locker, error) {
	l, err := leader.NewLatch(client, path, leader.WithID(fmt.Sprintf("go-%d", i)), leader.WithErrorPolicy(r.Policy))
	if err != nil {
		return nil, err
	}
	return &latchLocker{l: l}, nil
}

type latchLocker struct {
	l     *leader.Latch
	start sync.Once
}

func (l *latchLocker) Exclusive() bool { return true }

// Acquire starts the latch the first time (for as long as the run lasts:
// Close ends it) and waits for a term.
func (l *latchLocker) Acquire(ctx context.Context) (Held, error) {
	var err error
	l.start.Do(func() { err = l.l.Start(context.WithoutCancel(ctx)) })
	if err != nil {
		return nil, err
	}
	term, err := l.l.Await(ctx)
	if err != nil {
		return nil, err
	}
	return latchHeld{l: l.l, term: term}, nil
}

// Close leaves the election, so that the run leaves no node behind.
func (l *latchLocker) Close(ctx context.Context) error { return l.l.Close(ctx) }

type latchHeld struct {
	l    *leader.Latch
	term *leader.Leadership
}

func (h latchHeld) Lost() <-chan struct{} { return h.term.Lost() }

func (h latchHeld) FencingToken(ctx context.Context) (int64, error) { return h.term.FencingToken(ctx) }

func (h latchHeld) Node() string { return h.term.Node() }

// Release resigns the term, unless it has ended already: the latch may
// lead again by now, in a term that this hold is not.
func (h latchHeld) Release(ctx context.Context) error {
	if err := h.term.Err(); err != nil {
		return err
	}
	return h.l.Resign(ctx)
}

// Selector is the Recipe of the leader package's Selector: a hold is one
// run of the selector's function, from its entry until it returns; a
// release makes it return, and a loss cancels its ctx.
type Selector struct {
	// Policy is the selector's error policy; the zero value is the
	// standard one.
	Policy framework.ErrorPolicy
}

// Name returns "leader-selector".
func (Selector) Name() string { return "leader-selector" }

// Limit returns 1: one leader at a time.
func (Selector) Limit() int { return 1 }

// New returns a Locker on a selector of its own.
func (r Selector) New(client *framework.Client, i int, path string) (Locker, error) {
	s, err := leader.NewSelector(client, path, holdTerm, leader.WithID(fmt.Sprintf("go-%d", i)), leader.WithErrorPolicy(r.Policy))
	if err != nil {
		return nil, err
	}
	return selectorLocker{s: s}, nil
}

type selectorLocker struct{ s *leader.Selector }

func (l selectorLocker) Exclusive() bool { return true }

// Acquire runs the selector until its function is entered: the term's
// hold. Run outlives ctx (an attempt's bound), which stops it only while
// it waits in line; the function returns on the hold's release or the end
// of its own ctx.
func (l selectorLocker) Acquire(ctx context.Context) (Held, error) {
	h := &selectorHeld{release: make(chan struct{}), returned: make(chan struct{}), done: make(chan error, 1),
		entered: make(chan struct{})}
	runCtx, stopRun := context.WithCancel(context.WithoutCancel(ctx))
	h.queued = context.AfterFunc(ctx, stopRun)
	// The function's ctx keeps Run's values: it finds h there.
	runCtx = context.WithValue(runCtx, heldKey{}, h)
	// Ends when Run returns: after one term, or when stopped in line.
	go func() {
		defer stopRun()
		h.done <- l.s.Run(runCtx)
	}()
	select {
	case <-h.entered:
		return h, nil
	case err := <-h.done:
		if err == nil {
			err = fmt.Errorf("selector run ended without a term")
		}
		return nil, err
	}
}

// heldKey is the context key of the selectorHeld that a Run is for.
type heldKey struct{}

// holdTerm is the selectors' function: it holds the term for the
// selectorHeld of its Run until that is released or the term ends.
func holdTerm(fctx context.Context) error {
	h := fctx.Value(heldKey{}).(*selectorHeld)
	// The term ends as the function returns, and not before: its node
	// keeps every successor out until then.
	defer func() {
		h.endedAt.Store(zktest.Monotonic())
		close(h.returned)
	}()
	h.queued() // in the term, an attempt's bound no longer stops Run
	h.term, _ = leader.LeadershipFrom(fctx)
	close(h.entered)
	select {
	case <-h.release:
	case <-fctx.Done():
	}
	return nil
}

type selectorHeld struct {
	term     *leader.Leadership
	queued   func() bool   // stops the attempt's bound from stopping Run
	entered  chan struct{} // closed as the function is entered
	release  chan struct{}
	returned chan struct{} // closed as the function returns
	endedAt  atomic.Int64  // zktest.Monotonic as the function returned
	done     chan error    // Run's answer
	once     sync.Once
}

// LostAt is when the function returned.
func (h *selectorHeld) LostAt() int64 { return h.endedAt.Load() }

// Lost is closed once the function has returned without a release.
func (h *selectorHeld) Lost() <-chan struct{} { return h.returned }

func (h *selectorHeld) FencingToken(ctx context.Context) (int64, error) {
	return h.term.FencingToken(ctx)
}

func (h *selectorHeld) Node() string { return h.term.Node() }

// Release makes the function return and waits until Run has given the
// term up.
func (h *selectorHeld) Release(ctx context.Context) error {
	h.once.Do(func() { close(h.release) })
	select {
	case err := <-h.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// CuratorLatchPeer is what a run needs of the Curator peer for its
// LeaderLatch participants.
type CuratorLatchPeer interface {
	LatchStart(ctx context.Context, handle, path, id string) error
	LatchAwaitAt(ctx context.Context, handle string, timeout time.Duration) (bool, int64, error)
	LatchCloseAt(ctx context.Context, handle string) (int64, error)
	LatchNode(ctx context.Context, handle string) (string, error)
	Session(ctx context.Context) (int64, error)
}

// CuratorLatch is a Locker on a Curator 5.4 LeaderLatch at Path, through
// one handle of the peer: each acquire starts a latch and awaits its
// leadership, each release closes it. Its holds are PeerHeld and Vetted,
// never signalled lost (a LeaderLatch tells its listeners, which the peer
// does not relay).
type CuratorLatch struct {
	Peer     CuratorLatchPeer
	Handle   string
	Path     string
	Observer *framework.Client
}

// Exclusive returns true.
func (c CuratorLatch) Exclusive() bool { return true }

// Acquire starts a latch and waits until it leads or ctx ends; a latch
// that did not lead is closed, and so is one whose start failed: the peer
// carries a start out even when ctx ends before its answer (see
// zktest.Curator.Do), and a latch left started keeps its node for the rest
// of the run, and its handle refuses every later start.
func (c CuratorLatch) Acquire(ctx context.Context) (Held, error) {
	if err := c.Peer.LatchStart(ctx, c.Handle, c.Path, c.Handle); err != nil {
		c.close(ctx) // the peer answers an error if it has no latch: nothing to close
		return nil, fmt.Errorf("curator latch %s: %w", c.Path, err)
	}
	var at int64
	err := askPeer(ctx, func(ctx context.Context) (ok bool, err error) {
		ok, at, err = c.Peer.LatchAwaitAt(ctx, c.Handle, curatorAttempt)
		return ok, err
	})
	if err != nil {
		c.close(ctx)
		return nil, fmt.Errorf("curator latch %s: %w", c.Path, err)
	}
	return curatorLatchHeld{c: c, peerHold: peerHold{at: at, release: func(ctx context.Context) (int64, error) {
		return c.Peer.LatchCloseAt(ctx, c.Handle)
	}}}, nil
}

// close closes the handle's latch, after ctx has ended too, within the
// peer's answer bound.
func (c CuratorLatch) close(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), curatorAnswer)
	defer cancel()
	_, _ = c.Peer.LatchCloseAt(cctx, c.Handle)
}

type curatorLatchHeld struct {
	peerHold
	c CuratorLatch
}

func (h curatorLatchHeld) FencingToken(ctx context.Context) (int64, error) {
	v, err := h.Vet(ctx)
	return v.Token, err
}

// Vet reads the latch's node and the peer's session: a LeaderLatch of 5.4
// may lead with a node of a session it has left (CURATOR-696).
func (h curatorLatchHeld) Vet(ctx context.Context) (Vetting, error) {
	node, err := h.c.Peer.LatchNode(ctx, h.c.Handle)
	if err != nil {
		return Vetting{}, err
	}
	session, err := h.c.Peer.Session(ctx)
	if err != nil {
		return Vetting{Node: node}, err
	}
	return vetNode(ctx, h.c.Observer, node, session, "CURATOR-696")
}
