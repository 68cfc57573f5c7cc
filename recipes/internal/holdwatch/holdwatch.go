// Package holdwatch watches a held node — a lock hold or a lease — for the
// end of the hold without a release: the connection or the session, as the
// error policy says; a maximum hold time; and, once armed, the node itself,
// deleted by someone else. A hold has no goroutine of its own: the client
// tells the holds registered with it of their session's interruption and
// their nodes' events, the moment it sees them. Only recipes can import it
// (it lives under recipes/internal).
package holdwatch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Timeouts of the server calls a Watch makes on its own.
const (
	callTimeout = 5 * time.Second
	retryWait   = time.Second
)

// Kind is what the holds of one recipe share, kept once by the recipe
// rather than in every hold: an idle hold costs memory only, so each
// field it need not carry counts.
type Kind struct {
	Client *framework.Client
	Policy framework.ErrorPolicy
	// MaxHold, if positive, ends the hold that long after Start, or after
	// the last Renew: the deadline is kept on the holder's monotonic clock.
	MaxHold time.Duration
	// Lost is wrapped by every loss error; Expired too when MaxHold ends it.
	Lost, Expired error
	// What names the hold in logs ("lock hold", "lease"). Empty: the
	// recipe that stands on the hold logs its loss itself (the leader
	// package tells of a lost term).
	What string
	// Recipe names the recipe in the client's observer's events
	// (framework.HoldEvent). Empty: the holds are not reported, as a lock
	// that is a part of another recipe's acquire is not (mutex's
	// WithUnobserved).
	Recipe string
	// Log is the recipe's logger (framework.Hooks.Logger); nil: the
	// client's.
	Log *slog.Logger
	// Origin is an instant of the process's monotonic clock (time.Now()
	// where the Kind is made) that each hold's start is kept relative to,
	// for the client's observer: an offset costs an idle hold 8 bytes, a
	// time.Time 24.
	Origin time.Time
	// KeepNode leaves the node of a lost hold for the holder's release to
	// delete, instead of deleting it as soon as the connection allows.
	KeepNode bool
}

// Config is what a Watch watches, and how it reports.
type Config struct {
	*Kind
	Node framework.Node
	// Watch is a watch on Node set already (by a wait for a lock), or nil.
	Watch <-chan zk.Event
	// OnData, if set, gets the node's data each time its watch is set.
	OnData func(data []byte)
	// Covered: a persistent watch of the recipe's brings the node's events
	// (through the client's hold fan-out), so arming sends nothing; the
	// recipe calls Recheck when that watch cannot tell (a reconnect).
	Covered bool
	// Done, if set, is called once when the hold ends (released or lost),
	// under the Watch's lock: it must not block or call the Watch.
	Done func()
}

// Watch signals the end of one hold. It has no goroutine of its own: the
// client fans its session's interruption and its node's watch events out
// to the holds registered with it (framework.Hooks.WatchHold), and a
// MaxHold runs on a timer, so an idle hold costs memory only.
type Watch struct {
	cfg     Config
	lost    chan struct{} // closed on loss; made by the first Lost (guarded by mu)
	armOnce sync.Once
	// The flags are guarded by mu, and kept next to armOnce, whose 12
	// bytes they fill up to a word: an idle hold costs memory only, and
	// spread out they would cost it 16 bytes of padding.
	ended    bool // lost: Lost's channel is closed, or made closed
	finished bool
	armed    bool // the node is watched: a change sets the watch again
	covered  bool // by a recipe's persistent watch: a change needs no new watch
	reg      framework.HoldRegistration

	mu       sync.Mutex // guards err, the flags, deadline and timer
	err      error
	deadline time.Time     // with MaxHold: the end of the hold unless renewed
	timer    *time.Timer   // with MaxHold
	since    time.Duration // when the hold began, after Kind.Origin; only for the client's observer
}

// Start starts watching; the watch ends with Finish or a loss.
func Start(cfg Config) *Watch {
	w := new(Watch)
	w.Start(cfg)
	return w
}

// Start starts w, a zero Watch that a hold keeps inside itself (saving an
// allocation), as the function Start does.
func (w *Watch) Start(cfg Config) {
	w.cfg, w.armed, w.covered = cfg, cfg.Watch != nil || cfg.Covered, cfg.Covered
	if o := cfg.Client.Hooks().Observer(); o != nil && cfg.Recipe != "" {
		w.since = time.Since(cfg.Origin)
		// Told before the hold is registered, so before any end of it.
		o.OnHoldStart(framework.HoldEvent{Recipe: cfg.Recipe, Path: path.Dir(cfg.Node.Path), Node: cfg.Node.Path})
	}
	// Registered first, under w.mu (the client may call w at once), so
	// that an interruption after the check below is the client's to tell.
	w.mu.Lock()
	w.reg = cfg.Client.Hooks().WatchHold(cfg.Node, cfg.Policy, w)
	if cfg.MaxHold > 0 {
		w.deadline = time.Now().Add(cfg.MaxHold)
		// Runs once per deadline, on a goroutine of the timer's.
		w.timer = time.AfterFunc(cfg.MaxHold, w.onTimer)
	}
	w.mu.Unlock()
	// A hold made on a session already interrupted (under the policy) is
	// lost when it is handed out, not a moment later on another
	// goroutine: by then others may hold what the session held.
	if cfg.Node.Session.IsInterrupted(cfg.Policy) {
		w.lose(fmt.Errorf("%w: %s before the hold began", cfg.Lost, Interruption(cfg.Node.Session)), recipe.InterruptionCause(cfg.Node.Session))
		return
	}
	if cfg.Watch != nil {
		// An event that came before the registration is waiting here.
		select {
		case ev, ok := <-cfg.Watch:
			if ok {
				w.NodeEvent(ev)
			}
		default:
		}
	}
}

// Interrupted ends the hold on the interruption of its session under the
// policy. It is the client's call (framework.HoldListener).
func (w *Watch) Interrupted() {
	w.lose(fmt.Errorf("%w: %s", w.cfg.Lost, Interruption(w.cfg.Node.Session)), recipe.InterruptionCause(w.cfg.Node.Session))
}

// NodeEvent takes a watch event of the held node: a deletion ends the
// hold, any other change sets the watch again (if the node is watched).
// It is the client's call (framework.HoldListener), on the goroutine that
// reads the connection: what may block runs on a goroutine of its own.
func (w *Watch) NodeEvent(ev zk.Event) {
	w.mu.Lock()
	over, armed, covered := w.err != nil || w.finished, w.armed, w.covered
	w.mu.Unlock()
	switch {
	case over:
	case ev.Type == zk.EventNodeDeleted:
		go w.lose(w.deleted(), framework.CauseDeleted) // ends when the loss is signalled
	case armed && (!covered || w.cfg.OnData != nil):
		go w.setWatch() // data changed; ends with an answer, Finish or loss
	}
}

// onTimer ends a hold whose MaxHold has run out, or waits on if it was
// renewed meanwhile.
func (w *Watch) onTimer() {
	if left := w.expire(); left > 0 {
		w.mu.Lock()
		w.timer.Reset(left)
		w.mu.Unlock()
	}
}

// Arm starts watching the node itself (one request), unless a watch was
// given in the Config. Later calls do nothing.
func (w *Watch) Arm() {
	w.armOnce.Do(func() {
		w.mu.Lock()
		given, over := w.armed, w.err != nil || w.finished
		w.armed = true
		w.mu.Unlock()
		if !given && !over {
			go w.setWatch() // ends with an answer, Finish or loss
		}
	})
}

// Recheck reads the node (one request, setting a one-shot watch on it),
// and ends the hold if it is gone: the covering watch may have missed its
// deletion, or ended. From then on the hold keeps a one-shot watch of its
// own set, as an uncovered hold does. It does not block.
func (w *Watch) Recheck() {
	w.mu.Lock()
	over := w.err != nil || w.finished
	w.covered = false
	w.mu.Unlock()
	if !over {
		go w.setWatch() // ends with an answer, Finish or loss
	}
}

// Node returns the watched node.
func (w *Watch) Node() framework.Node { return w.cfg.Node }

// Lost arms the watch and returns the channel closed on loss.
func (w *Watch) Lost() <-chan struct{} {
	w.Arm()
	return w.lostChan()
}

// lostChan returns the channel closed on loss, made at the first call: a
// hold that is never asked costs no channel.
func (w *Watch) lostChan() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.lost == nil {
		w.lost = make(chan struct{})
		if w.ended {
			close(w.lost)
		}
	}
	return w.lost
}

// endedLocked marks the hold lost and closes Lost's channel if made; w.mu
// is held.
func (w *Watch) endedLocked() {
	w.ended = true
	if w.lost != nil {
		close(w.lost)
	}
	w.endLocked()
}

// Err returns nil while the hold lasts, the loss error after a loss, and
// the error given to Finish after it.
//
// A hold whose MaxHold deadline has passed is expired from that instant,
// whether or not its timer has run yet: on a loaded machine it runs late.
func (w *Watch) Err() error {
	w.mu.Lock()
	err := w.expireLocked()
	held := w.err
	w.mu.Unlock()
	if err != nil {
		w.signal(err, framework.CauseExpired)
	}
	return held
}

// Finish ends the watch for a release. It returns the loss that came
// before, if any, and whether this is the first call; a first call with no
// loss records done as the hold's Err.
func (w *Watch) Finish(done error) (prior error, first bool) {
	w.mu.Lock()
	if expired := w.expireLocked(); expired != nil {
		w.mu.Unlock()
		w.signal(expired, framework.CauseExpired)
		w.mu.Lock()
	}
	defer w.mu.Unlock()
	if w.finished {
		return nil, false
	}
	w.finished = true
	prior = w.err
	if prior == nil {
		w.err = done
		if o := w.cfg.Client.Hooks().Observer(); o != nil {
			w.observe(o, framework.CauseReleased, nil)
		}
	}
	w.endLocked()
	return prior, true
}

// observe reports the end of the hold to the client's observer, if the
// hold is reported at all (Kind.Recipe).
func (w *Watch) observe(o framework.Observer, cause framework.Cause, err error) {
	if w.cfg.Recipe == "" {
		return
	}
	node := w.cfg.Node.Path
	o.OnHoldEnd(framework.HoldEvent{
		Recipe: w.cfg.Recipe, Path: path.Dir(node), Node: node,
		Held: time.Since(w.cfg.Origin) - w.since, Cause: cause, Err: err,
	})
}

// endLocked ends the registration and the timer; w.mu is held.
func (w *Watch) endLocked() {
	w.reg.Stop()
	if w.cfg.Done != nil {
		w.cfg.Done()
		w.cfg.Done = nil
	}
	if w.timer != nil {
		w.timer.Stop()
	}
}

// Renew moves the deadline of a hold with a MaxHold to at+MaxHold (at is
// when the holder proved it was alive, on its own clock), unless the hold
// has ended, or its deadline has passed (its timer may not have run yet):
// then it returns the hold's Err and changes nothing. A deadline
// never moves back.
func (w *Watch) Renew(at time.Time) error {
	w.mu.Lock()
	expired := w.expireLocked() // a deadline passed, its timer not run yet, is not renewed
	held := w.err
	if held == nil {
		if d := at.Add(w.cfg.MaxHold); d.After(w.deadline) {
			w.deadline = d
		}
	}
	w.mu.Unlock()
	if expired != nil {
		w.signal(expired, framework.CauseExpired)
	}
	return held
}

// Deadline returns when a hold with a MaxHold ends unless renewed, on the
// holder's clock; the zero Time without a MaxHold.
func (w *Watch) Deadline() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.deadline
}

// expire ends the hold if its deadline has passed, and otherwise returns
// the time left (0 once the hold has ended).
func (w *Watch) expire() time.Duration {
	w.mu.Lock()
	err := w.expireLocked()
	left := time.Duration(0)
	if w.err == nil && !w.finished {
		left = time.Until(w.deadline)
	}
	w.mu.Unlock()
	if err != nil {
		w.signal(err, framework.CauseExpired)
	}
	return left
}

// expireLocked ends a hold with a MaxHold whose deadline has passed, and
// returns the error for the caller to signal once w.mu is unlocked; nil
// if the hold goes on or had ended. Deciding and recording under one lock
// orders it against Renew: a Renew that returned nil was in time. w.mu is
// held.
func (w *Watch) expireLocked() error {
	if w.cfg.MaxHold <= 0 || w.err != nil || w.finished || time.Now().Before(w.deadline) {
		return nil
	}
	w.err = recipe.Errorf("%w: %w: not renewed within %v", w.cfg.Lost, w.cfg.Expired, w.cfg.MaxHold)
	w.endedLocked()
	return w.err
}

// setWatch sets a watch on the node, retrying through connection trouble
// until the hold ends. Its events reach NodeEvent through the client (the
// watch's own channel is left unread: go-zookeeper never blocks on it). A
// missing node is a loss.
func (w *Watch) setWatch() {
	for {
		ctx, cancel := context.WithTimeout(framework.BindSession(context.Background(), w.cfg.Node.Session), callTimeout)
		data, _, _, err := w.cfg.Client.GetW(ctx, w.cfg.Node.Path)
		cancel()
		switch {
		case err == nil:
			if w.cfg.OnData != nil {
				w.cfg.OnData(data)
			}
			return
		case errors.Is(err, zk.ErrNoNode):
			w.lose(w.deleted(), framework.CauseDeleted)
			return
		case errors.Is(err, framework.ErrSessionChanged), errors.Is(err, framework.ErrClosed):
			return // the session signal decides
		}
		select {
		case <-time.After(retryWait):
		case <-w.lostChan():
			return
		}
		w.mu.Lock()
		finished := w.finished
		w.mu.Unlock()
		if finished {
			return
		}
	}
}

func (w *Watch) deleted() error {
	return fmt.Errorf("%w: %s was deleted", w.cfg.Lost, w.cfg.Node.Path)
}

// lose ends the hold: it records why, closes Lost, and deletes the node
// once connected (unless KeepNode), so that a hold given up on suspension
// frees what it held if the session survives.
func (w *Watch) lose(err error, cause framework.Cause) {
	w.mu.Lock()
	if w.err != nil || w.finished {
		w.mu.Unlock()
		return
	}
	w.err = err
	w.endedLocked()
	w.mu.Unlock()
	w.signal(err, cause)
}

// signal tells of a loss (Lost is closed already) for cause, and gives
// the node up: see lose. A loss is logged at Info: it is the signal doing
// its work, and the holder hears of it through Lost and Err.
func (w *Watch) signal(err error, cause framework.Cause) {
	closed := w.cfg.Client.IsClosed()
	if closed {
		cause = framework.CauseClosed
	}
	if o := w.cfg.Client.Hooks().Observer(); o != nil {
		w.observe(o, cause, err)
	}
	log := w.cfg.Log
	if log == nil {
		log = w.cfg.Client.Logger()
	}
	switch {
	case closed:
		// A deliberate Close ends every hold: that is no news to warn of.
		if w.cfg.What != "" {
			log.Debug(w.cfg.What+" ended by Close", recipe.LogAttr("path", w.cfg.Node.Path))
		}
		return
	case w.cfg.What == "":
		// The recipe on the hold tells of it.
	case cause == framework.CauseExpired:
		log.Info(w.cfg.What+" expired", recipe.LogAttr("path", w.cfg.Node.Path), recipe.ErrAttr(err))
	default:
		log.Info(w.cfg.What+" lost", recipe.LogAttr("path", w.cfg.Node.Path), "cause", string(cause), recipe.ErrAttr(err))
	}
	if !w.cfg.KeepNode && !w.cfg.Node.Session.IsLost() {
		_, _ = w.cfg.Client.DeleteInBackground(w.cfg.Node.Path)
	}
}

// Interruption says what interrupted session s: its loss, its lease run
// out, or a suspended connection.
func Interruption(s *framework.Session) string {
	switch {
	case s.IsLost():
		return "session lost"
	case s.LeaseRanOut():
		return "session lease ran out without an answer from the server"
	}
	return "connection suspended"
}
