package leases

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// ttlHold is the state of a TTL lease: its deadline on the holder's clock,
// the node's version after the holder's last write, and how it ended.
type ttlHold struct {
	bound time.Duration
	lost  chan struct{} // closed on loss
	ended chan struct{} // closed by a release; stops run

	mu       sync.Mutex // guards the fields below
	err      error
	finished bool
	deadline time.Time
	version  int32
	written  []byte // the data of the holder's last write, sent or not
	// report tells the client's observer of the lease's end (observeTTL);
	// nil without an observer.
	report func(cause framework.Cause, err error)
}

// endedLocked reports the lease's end, once: the caller has just set err
// (or released the lease) and holds mu.
func (h *ttlHold) endedLocked(cause framework.Cause, err error) {
	if h.report != nil {
		h.report(cause, err)
	}
}

// IssueTTL returns the lease of node, a TTL lease node (persistent
// sequential with TTL, created with data) whose version is version and
// whose time to live is ttl; sent is when its create was first sent, read
// from the holder's clock before that (a create retried, or whose answer
// came late or was found later, counts from its first attempt). The lease
// is bound to no session: it survives the loss of the session that created
// it, and any session of client may renew or release it. It is for recipes
// that issue leases, such as package semaphore (see its WithTTL); a
// process that restarts takes such a lease over with Resume.
//
// A TTL lease lives by its renewals (Renew, or a Keeper). Each renewal
// rewrites the node's data if its version is still the holder's, which
// also resets the server's TTL clock, and moves the holder's deadline to
// ttl after the renewal began. Then:
//
//   - Once the holder's deadline passes without a renewal, the holder's
//     process signals the lease lost (ErrExpired) and deletes the node if
//     its version is still the holder's. Err says so from the deadline on,
//     whether or not the timer that closes Lost has run yet.
//   - A holder that is gone as a whole (its process stopped or cut off)
//     loses the lease on the server: ZooKeeper deletes a TTL node that has
//     not changed for ttl, at its next container check, so the permit is
//     free within ttl plus the server's znode.container.checkIntervalMs
//     (60 s by default) after the last renewal. Since the holder's
//     deadline counts from before its write (the create, or a renewal)
//     was sent, the holder stops believing it holds the lease before the
//     server can free it, provided the clocks agree: the server compares
//     its own wall clock with the node's modification time, which the
//     server's leader stamped with its wall clock, while the holder counts
//     on its monotonic clock. A difference in clock rate over one TTL, and
//     a step of the leader's wall clock forward (or a new leader whose
//     clock is ahead of the old one's) between the write and the check,
//     shorten the server's count by as much; keep the TTL well above both.
//   - A renewal that finds the node gone or written by someone else (a
//     Resume elsewhere took the lease over) signals the lease lost, and
//     deletes nothing.
//
// Connection and session trouble do not end a TTL lease: its bound does,
// and so does another holder taking it over (Resume) or deleting its node,
// which the lease watches from the start (one read when it is handed out,
// and one after each write to the node, its own renewals included): Lost
// closes and Err wraps ErrTakenOver (or ErrLost) at once, not at the next
// renewal. Its fencing token is the zxid its issuer grants it (Grant), or
// the node's creation zxid, until someone takes it over: see Resume.
func IssueTTL(client *framework.Client, node framework.Node, version int32, data []byte, ttl time.Duration, sent time.Time, opts ...Option) (*Lease, error) {
	switch {
	case client == nil:
		return nil, fmt.Errorf("%w: nil client", ErrInvalidArgument)
	case node.Path == "":
		return nil, fmt.Errorf("%w: a lease node needs a path", ErrInvalidArgument)
	case ttl < time.Millisecond:
		return nil, fmt.Errorf("%w: time to live %v must be at least 1 ms", ErrInvalidArgument, ttl)
	case sent.IsZero():
		return nil, fmt.Errorf("%w: the send time of the lease node's create is missing", ErrInvalidArgument)
	}
	o, err := recipe.Options(opts, ErrInvalidArgument)
	if err != nil {
		return nil, err
	}
	if o.maxHold > 0 {
		return nil, fmt.Errorf("%w: the bound of a TTL lease is its time to live, not WithMaxHold", ErrInvalidArgument)
	}
	l := newLease(client, node, data, o)
	l.ttl = newTTLHold(ttl, version, data, sent)
	l.observeTTL()
	l.startTTL()
	return l, nil
}

func newTTLHold(ttl time.Duration, version int32, written []byte, at time.Time) *ttlHold {
	return &ttlHold{
		bound: ttl, lost: make(chan struct{}), ended: make(chan struct{}),
		deadline: at.Add(ttl), version: version, written: written,
	}
}

// Err returns the lease's Err. A lease whose deadline has passed is
// expired from that instant, even if runTTL's timer has not fired yet.
func (h *ttlHold) Err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.expireLocked()
	return h.err
}

// expireLocked ends the lease if its deadline has passed, and returns the
// time left otherwise (0 once the lease has ended). The caller holds mu.
func (h *ttlHold) expireLocked() time.Duration {
	if h.err != nil {
		return 0
	}
	if left := time.Until(h.deadline); left > 0 {
		return left
	}
	h.err = recipe.Errorf("%w: %w: not renewed within %v", ErrLost, ErrExpired, h.bound)
	close(h.lost)
	h.endedLocked(framework.CauseExpired, h.err)
	return 0
}

// guarded returns the version of the holder's last write whose answer
// came, and the lease's Err.
func (h *ttlHold) guarded() (int32, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.expireLocked()
	return h.version, h.err
}

// lose records err and closes lost, unless the lease has ended already,
// or its deadline has passed: then the expiry is what ended it.
func (h *ttlHold) lose(err error) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.expireLocked(); h.err != nil {
		return false
	}
	h.err = err
	close(h.lost)
	h.endedLocked(framework.CauseDeleted, err) // taken over or deleted
	return true
}

// startTTL starts the goroutines of a TTL lease that is handed out.
func (l *Lease) startTTL() {
	// Ends on a release, or when the deadline passes.
	go l.runTTL()
	// Ends on a release or a loss, or when the client is closed.
	go l.watchTTL()
}

// runTTL signals the lease lost and gives its node up when the holder's
// deadline passes without a renewal.
func (l *Lease) runTTL() {
	h := l.ttl
	t := time.NewTimer(h.bound)
	defer t.Stop()
	for {
		select {
		case <-h.ended:
		case <-h.lost:
		case <-t.C:
		}
		h.mu.Lock()
		left, version, err := h.expireLocked(), h.version, h.err
		h.mu.Unlock()
		if left > 0 {
			t.Reset(left)
			continue
		}
		if !errors.Is(err, ErrExpired) {
			return // returned, or lost otherwise: nothing to give up
		}
		// The bound is there to end the lease: its passing is news, not trouble.
		l.log().Info("lease expired", "path", l.node.Path, "err", err)
		ctx, cancel := context.WithTimeout(context.Background(), recipe.CleanupTimeout)
		_ = l.deleteTTL(ctx, version)
		cancel()
		return
	}
}

// renewTTL renews a TTL lease: a write conditional on the holder's
// version. The caller holds the renewing token.
func (l *Lease) renewTTL(ctx context.Context) error {
	h := l.ttl
	h.mu.Lock()
	h.expireLocked()
	version, err, earlier := h.version, h.err, h.written
	at := time.Now()
	data := l.stamp(TTLMode, h.bound, at, l.renewals+1)
	h.written = data
	h.mu.Unlock()
	if err != nil {
		return l.renewError(err)
	}
	// UniqueData: the stamp names this Lease and counts its renewals, so a
	// write of this call whose answer was lost is recognised by the
	// framework, which finds it in the node.
	stat, err := l.client.Set(ctx, l.node.Path, data, version, framework.UniqueData())
	if errors.Is(err, zk.ErrBadVersion) {
		stat, err = l.rewrite(ctx, data, earlier)
	}
	switch {
	case err == nil:
		l.renewals++
		return l.renewed(at, stat.Version)
	case errors.Is(err, zk.ErrNoNode):
		l.ttl.lose(fmt.Errorf("%w: %s is gone (expired on the server, or deleted)", ErrLost, l.node.Path))
		return l.renewError(l.Err())
	case errors.Is(err, zk.ErrBadVersion):
		l.ttl.lose(fmt.Errorf("%w: %s was resumed elsewhere", ErrTakenOver, l.node.Path))
		return l.renewError(l.Err())
	}
	return fmt.Errorf("leases: renew %s: not renewed: %w", l.node.Path, err)
}

// renewed records a renewal that began at and left the node at version.
// If the lease ended while the write was on its way, the write kept a node
// that nobody holds any more: it is deleted.
func (l *Lease) renewed(at time.Time, version int32) error {
	h := l.ttl
	h.mu.Lock()
	h.expireLocked() // a deadline that passed while the write was on its way ends the lease
	err := h.err
	if err == nil {
		h.version = version
		if d := at.Add(h.bound); d.After(h.deadline) {
			h.deadline = d
		}
	}
	h.mu.Unlock()
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrExpired) {
		ctx, cancel := context.WithTimeout(context.Background(), recipe.CleanupTimeout)
		defer cancel()
		_ = l.deleteTTL(ctx, version)
	}
	return l.renewError(err)
}

// rewrite writes data again, on the node's current version, after a
// renewal conditional on the holder's version met another version, if the
// node holds earlier: the holder's previous write, whose outcome the
// holder did not learn (abandoned when its ctx ended, or given up as of
// unknown outcome), applied all the same. The framework cannot tell this
// case: it judges the tries of one call, and this write's data is not the
// earlier call's. Otherwise the error is zk.ErrBadVersion: someone else
// wrote the node.
func (l *Lease) rewrite(ctx context.Context, data, earlier []byte) (*zk.Stat, error) {
	stat, err := l.holdsWrite(ctx, earlier)
	if err != nil {
		return nil, err
	}
	return l.client.Set(ctx, l.node.Path, data, stat.Version, framework.UniqueData())
}

// holdsWrite reads the node and returns its stat if it holds written, a
// write of the holder's; otherwise zk.ErrBadVersion.
func (l *Lease) holdsWrite(ctx context.Context, written []byte) (*zk.Stat, error) {
	got, stat, err := l.client.Get(ctx, l.node.Path)
	switch {
	case err != nil:
		return nil, err
	case !bytes.Equal(got, written):
		return nil, zk.ErrBadVersion
	}
	return stat, nil
}
