package cache

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// The cache's goroutine takes signals, gathers every one that is waiting,
// and reads what they name in batches until nothing is left to read.
// Every signal leads to a read, a deletion included: a read's reply comes
// after every notification the server sent before it, so the tree moves
// only forward, from one read of a node to a later one, and an old
// notification taken late costs a read that changes nothing, never a
// wrong event. apply.go says how a node's new incarnation is placed under
// its parent's, so that a Deleted is only ever the server's.

// retryPause is the wait before reading again after a read failed as a
// whole (the client's own retries were spent).
const retryPause = 200 * time.Millisecond

// loop is the state of the cache's goroutine.
type loop struct {
	c       *Cache
	src     source
	pending map[string]want
	catch   bool
	since   int64
	loaded  bool // the first load is done: children a list finds are new
}

func (c *Cache) run(ctx context.Context) {
	src := c.openUntilSet(ctx)
	if src == nil {
		return
	}
	l := &loop{c: c, src: src, pending: map[string]want{c.path: wantData}}
	defer func() {
		cleanup, cancel := context.WithTimeout(context.Background(), closeBound)
		l.src.close(cleanup)
		cancel()
	}()
	if !l.settle(ctx) {
		return
	}
	c.emit(Event{Type: Initialized})
	close(c.initialized)
	l.loaded = true
	for {
		select {
		case <-c.in.ready():
		case <-ctx.Done():
			return
		}
		if !l.drain(ctx) || !l.settle(ctx) {
			return
		}
	}
}

// openUntilSet sets the cache's watch, trying again while the server
// cannot be reached; nil when the cache must stop.
func (c *Cache) openUntilSet(ctx context.Context) source {
	for {
		src, err := c.open(ctx)
		if err == nil {
			return src
		}
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, ErrClosed) { // the client's Close
			c.life.Stopped(err)
			return nil
		}
		c.log().Debug("cache watch not set; trying again", "path", c.path, "err", err)
		select {
		case <-time.After(retryPause):
		case <-ctx.Done():
			return nil
		}
	}
}

// drain notes every signal waiting in the inbox.
func (l *loop) drain(ctx context.Context) bool {
	for _, s := range l.c.in.take() {
		if !l.note(ctx, s) {
			return false
		}
	}
	return true
}

// note records s; false when the cache must stop.
func (l *loop) note(ctx context.Context, s signal) bool {
	switch {
	case s.ended:
		return l.ended(ctx, s.err)
	case s.catch:
		if !l.catch || s.since < l.since {
			l.since = s.since
		}
		l.catch = true
	default:
		l.pend(s.path, s.want)
	}
	return true
}

func (l *loop) pend(p string, w want) {
	if !l.c.keeps(p) {
		return
	}
	if !l.c.lists(p) {
		w &^= wantList
	}
	if p == l.c.path || w&wantData == 0 {
		w &^= wantVerify // the root is placed under nothing; a list alone needs no parent
	}
	if w != 0 {
		l.pending[p] |= w
	}
}

// ended handles the end of the source: a server that can no longer keep
// the recursive watch (a rolling downgrade) moves the cache to one-shot
// watches, which read every node again; anything else stops the cache.
func (l *loop) ended(ctx context.Context, err error) bool {
	if errors.Is(err, framework.ErrUnimplemented) && ctx.Err() == nil {
		l.c.log().Info("the server can no longer keep the recursive watch; caching with one-shot watches", "path", l.c.path)
		l.src = newOneShotSource(l.c)
		l.catch = false
		l.pend(l.c.path, wantData|wantList)
		for _, p := range l.c.tree.paths() {
			l.pend(p, wantData|wantList)
		}
		return true
	}
	if err != nil && ctx.Err() == nil {
		l.c.life.Stopped(err)
	}
	return false
}

// settle reads until nothing is pending; false when the cache must stop.
func (l *loop) settle(ctx context.Context) bool {
	for {
		if ctx.Err() != nil {
			return false
		}
		if l.catch {
			if err := l.catchUp(ctx); err != nil {
				if !l.failed(ctx, "catch up", err) {
					return false
				}
				continue
			}
			// The notifications the catch-up's question drew came before
			// its answer: they join what it reported, read once.
			if !l.drain(ctx) {
				return false
			}
		}
		if len(l.pending) == 0 {
			return true
		}
		reqs := l.take()
		results, err := l.src.read(ctx, reqs)
		if err != nil {
			if !l.failed(ctx, "read", err) {
				return false
			}
			for _, r := range reqs {
				l.pending[r.path] |= r.want
			}
			continue
		}
		l.apply(results)
		if !l.drain(ctx) {
			return false
		}
	}
}

// catchUp asks which cached nodes changed after l.since, and pends them.
func (l *loop) catchUp(ctx context.Context) error {
	present := l.c.tree.paths()
	var absent []string
	if len(present) == 0 {
		absent = []string{l.c.path}
	}
	sigs, err := l.src.catchUp(ctx, l.since, present, absent)
	if err != nil {
		return err
	}
	l.catch = false
	for _, s := range sigs {
		l.pend(s.path, s.want)
	}
	return nil
}

// failed logs a failed request and waits before the next; false when the
// cache must stop (it was closed, or its client was).
func (l *loop) failed(ctx context.Context, what string, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	if errors.Is(err, framework.ErrClosed) {
		l.ended(ctx, err)
		return false
	}
	l.c.log().Debug("cache "+what+" failed; trying again", "path", l.c.path, "err", err)
	select {
	case <-time.After(retryPause):
		return true
	case <-ctx.Done():
		return false
	}
}

// take empties pending into requests, parents before children.
func (l *loop) take() []request {
	type ranked struct {
		request
		depth int
	}
	rs := make([]ranked, 0, len(l.pending))
	for p, w := range l.pending {
		rs = append(rs, ranked{request{path: p, want: w}, depth(l.c.path, p)})
	}
	l.pending = make(map[string]want) // not clear: a load's table would stay allocated
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].depth != rs[j].depth {
			return rs[i].depth < rs[j].depth
		}
		return rs[i].path < rs[j].path
	})
	reqs := make([]request, len(rs))
	for i, r := range rs {
		reqs[i] = r.request
	}
	return reqs
}
