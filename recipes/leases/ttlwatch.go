package leases

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Timeouts of the reads a TTL lease's watch makes on its own.
const (
	watchCallTimeout = 5 * time.Second
	watchRetryWait   = time.Second
)

// watchTTL watches a TTL lease's node so that a take-over (a Resume
// elsewhere writes its own stamp) or a deletion by someone else ends the
// lease at once, not at the holder's next renewal: each look reads the
// node with a watch, and every change (the holder's own renewals too)
// brings another look. A TTL lease outlives sessions, so the reads are
// bound to none, and a watch that a new session dropped is set again.
func (l *Lease) watchTTL() {
	h := l.ttl
	for {
		ctx, cancel := context.WithTimeout(context.Background(), watchCallTimeout)
		data, stat, events, err := l.client.GetW(ctx, l.node.Path)
		cancel()
		switch {
		case errors.Is(err, zk.ErrNoNode):
			h.lose(fmt.Errorf("%w: %s is gone (expired on the server, or deleted)", ErrLost, l.node.Path))
			return
		case errors.Is(err, framework.ErrClosed):
			return // the client is gone: the deadline still ends the lease
		case err != nil:
			select {
			case <-time.After(watchRetryWait):
				continue
			case <-h.ended:
				return
			case <-h.lost:
				return
			}
		}
		if !l.holds(data, stat) {
			h.lose(fmt.Errorf("%w: %s was resumed elsewhere", ErrTakenOver, l.node.Path))
			return
		}
		select {
		case <-events: // changed, deleted, or the watch was dropped: look again
		case <-h.ended:
			return
		case <-h.lost:
			return
		}
	}
}

// holds reports whether the node, read as data at stat, is still the
// holder's: at the version of the holder's last write or an older one (a
// read answered before that write's answer, but looked at after it: every
// version up to the holder's is the holder's, since each of its writes
// was conditional on the one before), or carrying the holder's own stamp
// (a renewal whose answer is still on its way). Every other holder's
// write (a Resume) stamps another holder, at a higher version.
func (l *Lease) holds(data []byte, stat *zk.Stat) bool {
	h := l.ttl
	h.mu.Lock()
	version, written := h.version, h.written
	h.mu.Unlock()
	if stat.Version <= version || bytes.Equal(data, written) {
		return true
	}
	s, _, ok := ParseStamp(data)
	return ok && s.Holder == l.holder
}
