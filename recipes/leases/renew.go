package leases

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// MaxHold returns the lease's bound: the time it may go without a renewal
// (WithMaxHold, or the time to live of a TTL lease), 0 for a lease without
// one.
func (l *Lease) MaxHold() time.Duration {
	if l.ttl != nil {
		return l.ttl.bound
	}
	return l.opts.maxHold
}

// Deadline returns when the lease ends unless it is renewed, on the
// holder's clock: its bound after the start of its last renewal, or of its
// acquire (for a TTL lease: before its node's create was sent) or Resume.
// A lease without a bound has none: the zero Time.
func (l *Lease) Deadline() time.Time {
	if l.ttl != nil {
		l.ttl.mu.Lock()
		defer l.ttl.mu.Unlock()
		return l.ttl.deadline
	}
	return l.watch.Deadline()
}

// Mode returns SessionMode, or TTLMode for a lease whose node outlives its
// holder's session.
func (l *Lease) Mode() Mode {
	if l.ttl != nil {
		return TTLMode
	}
	return SessionMode
}

// Renew proves that the holder is alive: it moves the lease's deadline to
// MaxHold after the call began, on the holder's own monotonic clock, and
// writes the renewal into the node's Stamp for operators (one request, and
// one more to set the node's watch again once Lost has been called, since
// the write fires it).
// The deadline moves only if the write succeeds; a failed write leaves the
// lease as it was, so a holder cut off from the server runs out of time.
//
// A write never creates a node, so a renewal cannot bring back a lease that
// has ended: Renew of a lost lease returns an error wrapping ErrLost (and
// ErrExpired if its bound passed), of a released lease one wrapping
// ErrReleased, of a lease without a bound ErrInvalidArgument, all without a
// request. Renewals of one lease run one at a time. For a TTL lease see
// also IssueTTL.
func (l *Lease) Renew(ctx context.Context) error {
	if l.MaxHold() == 0 {
		return fmt.Errorf("%w: renew %s: the lease has no bound (WithMaxHold)", ErrInvalidArgument, l.node.Path)
	}
	if err := l.Err(); err != nil {
		return l.renewError(err)
	}
	select {
	case l.renewing <- struct{}{}:
		defer func() { <-l.renewing }()
	case <-ctx.Done():
		return fmt.Errorf("leases: renew %s: %w", l.node.Path, ctx.Err())
	}
	if l.ttl != nil {
		return l.renewTTL(ctx)
	}
	return l.renewSession(ctx)
}

// renewSession renews a lease of the holder's session: a write bound to
// that session, of any version, since only the holder writes its node.
func (l *Lease) renewSession(ctx context.Context) error {
	if err := l.watch.Err(); err != nil {
		return l.renewError(err)
	}
	at := time.Now()
	data := l.stamp(SessionMode, l.opts.maxHold, at, l.renewals+1)
	_, err := l.client.Set(framework.BindSession(ctx, l.node.Session), l.node.Path, data, -1)
	switch {
	case err == nil:
		l.renewals++
		if err := l.watch.Renew(at); err != nil {
			return l.renewError(err) // the bound passed while the write was on its way
		}
		return nil
	case errors.Is(err, zk.ErrNoNode):
		l.watch.Arm() // the watch finds the node gone and signals the loss
		return fmt.Errorf("leases: renew %s: %w: the node was deleted", l.node.Path, ErrLost)
	case errors.Is(err, framework.ErrSessionChanged):
		return recipe.Errorf("leases: renew %s: %w: session lost: %w", l.node.Path, ErrLost, err)
	}
	return fmt.Errorf("leases: renew %s: not renewed: %w", l.node.Path, err)
}

// stamp returns the node data of a renewal.
func (l *Lease) stamp(mode Mode, bound time.Duration, at time.Time, renewals int) []byte {
	s := Stamp{Mode: mode, Bound: bound, Renewed: at, Renewals: renewals, Holder: l.holder}
	return s.Encode(l.data)
}

// renewError is the error of a renewal of a lease that has ended.
func (l *Lease) renewError(err error) error {
	return fmt.Errorf("leases: renew %s: %w", l.node.Path, err)
}
