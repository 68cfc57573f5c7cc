package leases

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
)

// monitor watches for the end of the lease: the connection or session per
// the error policy, the maximum hold time, and, once armed, the node.
func (l *Lease) monitor() {
	interrupted := l.node.Session.Interrupted(l.opts.policy)
	var expired <-chan time.Time
	if l.opts.maxHold > 0 {
		t := time.NewTimer(l.opts.maxHold)
		defer t.Stop()
		expired = t.C
	}
	arm := l.arm
	var watch <-chan zk.Event
	for {
		select {
		case <-l.ended:
			return
		case <-interrupted:
			l.lose(fmt.Errorf("%w: %s", ErrLost, interruption(l.node.Session)))
			return
		case <-expired:
			l.lose(fmt.Errorf("%w: %w: held for %v", ErrLost, ErrExpired, l.opts.maxHold))
			return
		case <-arm:
			arm = nil
		case ev := <-watch:
			if ev.Type == zk.EventNodeDeleted {
				l.lose(fmt.Errorf("%w: %s was deleted", ErrLost, l.node.Path))
				return
			}
		}
		// Armed: (re)set the watch after the arming, a data change, or a
		// watch dropped with the connection.
		var gone bool
		if watch, gone = l.watchNode(); gone {
			l.lose(fmt.Errorf("%w: %s was deleted", ErrLost, l.node.Path))
			return
		}
	}
}

// watchNode sets a watch on the lease node, and reports whether the node
// is gone. A failure to set it leaves the connection and session signals
// to decide.
func (l *Lease) watchNode() (<-chan zk.Event, bool) {
	ctx, cancel := context.WithTimeout(framework.BindSession(context.Background(), l.node.Session), cleanupTimeout)
	defer cancel()
	_, _, watch, err := l.client.GetW(ctx, l.node.Path)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return nil, true
	case err != nil:
		return nil, false
	}
	return watch, false
}

// lose ends the lease without a return: it records why, closes Lost, and
// deletes the node once connected, so that a lease given up on suspension
// frees its permit if the session survives.
func (l *Lease) lose(err error) {
	l.mu.Lock()
	if l.err != nil {
		l.mu.Unlock()
		return
	}
	l.err = err
	l.mu.Unlock()
	close(l.lost)
	l.client.Logger().Warn("lease lost", "path", l.node.Path, "err", err)
	if !l.node.Session.IsLost() {
		_, _ = l.client.DeleteInBackground(l.node.Path)
	}
}

func interruption(s *framework.Session) string {
	if s.IsLost() {
		return "session lost"
	}
	return "connection suspended"
}
