package leases

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// releaseTTL releases a TTL lease: the node is deleted if its version is
// still the holder's.
func (l *Lease) releaseTTL(ctx context.Context) error {
	h := l.ttl
	h.mu.Lock()
	if h.finished {
		h.mu.Unlock()
		return nil
	}
	h.finished = true
	h.expireLocked()
	prior, version := h.err, h.version
	if prior == nil {
		h.err = errReleased
		h.endedLocked(framework.CauseReleased, nil)
	}
	close(h.ended)
	h.mu.Unlock()
	if prior != nil {
		return fmt.Errorf("leases: release %s: %w", l.node.Path, prior)
	}
	ctx, cancel := recipe.FinishContext(ctx)
	defer cancel()
	if err := l.deleteTTL(ctx, version); err != nil {
		return fmt.Errorf("leases: release %s: %w", l.node.Path, err)
	}
	return nil
}

// deleteTTL deletes the node if its version is the holder's, or if it holds
// the holder's last write. A node found gone by the delete's first answer
// was lost before the release (taken over and released, or deleted by
// someone else, before the holder heard of it); one found gone after a
// lost answer may be the delete's own doing, and is no error. A node that
// cannot be deleted is left to the server, which removes it within its
// time to live plus the container check interval; the error says so.
func (l *Lease) deleteTTL(ctx context.Context, version int32) error {
	err := l.client.Delete(ctx, l.node.Path, version)
	if errors.Is(err, zk.ErrNoNode) && !errors.Is(err, framework.ErrOutcomeUnknown) {
		// The holder wrote the node last as far as it knows, and no delete
		// of its own ran: someone else's Resume, delete or release did.
		return fmt.Errorf("%w: %s was gone before the release: taken over or deleted by another", ErrLost, l.node.Path)
	}
	if errors.Is(err, zk.ErrBadVersion) || errors.Is(err, framework.ErrOutcomeUnknown) {
		// A bad version: the holder's last write may have been applied
		// unseen (see rewrite). An unknown outcome: the delete's answer was
		// lost, and its retry found the node gone or at another version. A
		// read tells: gone, or holding the holder's last write (deleted at
		// its version), or another holder's.
		l.ttl.mu.Lock()
		written := l.ttl.written
		l.ttl.mu.Unlock()
		var stat *zk.Stat
		if stat, err = l.holdsWrite(ctx, written); err == nil {
			err = l.client.Delete(ctx, l.node.Path, stat.Version)
		}
	}
	switch {
	case err == nil, errors.Is(err, zk.ErrNoNode):
		return nil
	case errors.Is(err, zk.ErrBadVersion):
		return fmt.Errorf("%w: %s belongs to another holder now", ErrLost, l.node.Path)
	}
	l.log().Warn("TTL lease node left to the server", "path", l.node.Path, "err", err)
	return fmt.Errorf("the node is left to the server's TTL: %w", err)
}
