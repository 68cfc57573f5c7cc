package leader

import (
	"context"
	"errors"
	"path"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// Leadership is one term of leadership: it begins when the participant's
// node is first in the election and ends at the latest when the session's
// lease runs out, so that every term ends before the server can hand
// leadership on. A latch's term ends when Lost is closed; a selector's
// when its function has returned.
type Leadership struct {
	hold  *mutex.Hold
	id    string
	ended chan struct{} // closed by end, once
	since time.Time     // when the term began; only for the client's observer

	mu    sync.Mutex
	cause error // why the term ended; guarded by mu
}

// newLeadership makes the term that hold, the participant's node first in
// the election, stands for. The term ends by end, or by the hold's loss.
func newLeadership(hold *mutex.Hold, id string) *Leadership {
	l := &Leadership{hold: hold, id: id, ended: make(chan struct{})}
	if o := hold.Client().Hooks().Observer(); o != nil {
		l.since = time.Now()
		l.observe(o, framework.TermStarted, nil)
	}
	// Ends when the hold is lost or the term is ended by its owner.
	go func() {
		select {
		case <-hold.Lost():
			l.end(hold.Err())
		case <-l.ended:
		}
	}()
	return l
}

// end ends the term with cause, unless it has ended already; it reports
// whether this call ended it.
func (l *Leadership) end(cause error) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cause != nil {
		return false
	}
	l.cause = cause
	close(l.ended)
	if o := l.hold.Client().Hooks().Observer(); o != nil {
		l.observe(o, framework.TermEnded, cause)
	}
	return true
}

// observe reports the term's start, or its end for cause, to the client's
// observer.
func (l *Leadership) observe(o framework.Observer, phase framework.TermPhase, cause error) {
	node := l.hold.Node()
	ev := framework.TermEvent{Recipe: "leader", Path: path.Dir(node), Node: node, Participant: l.id, Phase: phase}
	if phase == framework.TermEnded {
		ev.Duration, ev.Cause, ev.Err = time.Since(l.since), termCause(cause, l.hold.Session()), cause
	}
	o.OnTerm(ev)
}

// termCause is the cause of a term's end for the client's observer.
func termCause(err error, s *framework.Session) framework.Cause {
	switch {
	case errors.Is(err, ErrLost):
		return recipe.LossCause(err, s)
	case errors.Is(err, errReturned):
		return framework.CauseReleased
	case errors.Is(err, ErrResigned):
		return framework.CauseResigned
	case errors.Is(err, ErrClosed):
		return framework.CauseClosed
	}
	return framework.CauseCanceled
}

// Lost returns a channel that is closed when the term ends for any cause:
// a loss (see Err), Resign, Close, or the end of the participant's ctx.
func (l *Leadership) Lost() <-chan struct{} { return l.ended }

// Err returns nil while the term lasts; after it, an error saying why:
// one wrapping ErrLost (suspended connection, lease run out, session
// lost, node deleted by someone else), ErrResigned, ErrClosed, or the
// ctx's error. A loss is reported as soon as the hold knows of it, even
// a moment before Lost is closed.
func (l *Leadership) Err() error {
	l.mu.Lock()
	cause := l.cause
	l.mu.Unlock()
	if cause != nil {
		return cause
	}
	return l.hold.Err()
}

// ID returns the participant id the term was won under.
func (l *Leadership) ID() string { return l.id }

// Node returns the path of the participant's node, relative to the
// client's namespace.
func (l *Leadership) Node() string { return l.hold.Node() }

// Session returns the session the term's node belongs to.
func (l *Leadership) Session() *framework.Session { return l.hold.Session() }

// FencingToken returns the creation zxid of the term's node. It never
// decreases from one term to the next whoever wins them, and grows
// whenever the node changes, so a resource that keeps the highest token
// it has seen refuses a leader whose term has ended without its knowing
// once another has led. The terms that one node leads across blips (see
// Latch.Start) share it: no one led between them. Read from the server on
// the first call only.
func (l *Leadership) FencingToken(ctx context.Context) (int64, error) {
	return l.hold.FencingToken(ctx)
}

// Guard returns an operation for framework.Client.Multi that fails the
// transaction unless the term's node is still on the server, so that a
// write in the same transaction is applied only while the term stands:
//
//	_, err := client.Multi(ctx, term.Guard(), framework.SetOp("/config", data, -1))
//
// A transaction the guard fails writes nothing and returns an error
// wrapping ErrLost; a guard taken once the term has ended fails too. A
// guard taken in a term that a blip ended still passes in the next term
// led with the same node (see Latch.Start): no one led between them.
func (l *Leadership) Guard() framework.Op {
	l.mu.Lock()
	cause := l.cause
	l.mu.Unlock()
	if cause != nil {
		// Ended by its owner, the term's node may stand a moment longer,
		// until its delete is acknowledged: the hold does not know yet.
		return recipe.Guard(l.hold.Node(), -1, cause)
	}
	return l.hold.Guard()
}
