package cache

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// The cache's goroutine takes what its inbox asks, every read waiting at
// once, and reads in batches until nothing is left to read. Every
// notification leads to a read, a deletion included: a read's reply
// comes after every notification the server sent before it, so the tree
// moves only forward, from one read of a node to a later one, and an old
// notification taken late costs a read that changes nothing, never a
// wrong event. apply.go says how a node's new incarnation is placed under
// its parent's, so that a Deleted is only ever the server's.

// retryPause is the wait before reading again after a read failed as a
// whole (the client's own retries were spent).
const retryPause = 200 * time.Millisecond

// loop is the state of the cache's goroutine; what it must read next is
// in the cache's inbox.
type loop struct {
	c      *Cache
	src    source
	loaded bool // the first load is done: children a list finds are new
}

func (c *Cache) run(ctx context.Context) {
	src := c.openUntilSet(ctx)
	if src == nil {
		return
	}
	l := &loop{c: c, src: src}
	defer func() {
		cleanup, cancel := context.WithTimeout(context.Background(), closeBound)
		l.src.close(cleanup)
		cancel()
	}()
	l.pend(c.path, wantData)
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
		if !l.settle(ctx) {
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

// pend asks for a read of w of the node at p, on the cache's goroutine.
func (l *loop) pend(p string, w want) { l.c.in.add(p, w) }

// wanted is what of w the cache reads of the node at p: nothing of a
// node it does not keep, no list where it keeps no children, no parent's
// read for the root or for a list alone. It is applied as the reads are
// taken, on the cache's goroutine, not as they are asked for: the filter
// is the caller's code, which the client's reading goroutine never runs.
func (c *Cache) wanted(p string, w want) want {
	if !c.keeps(p) {
		return 0
	}
	if !c.lists(p) {
		w &^= wantList
	}
	if p == c.path || w&wantData == 0 {
		w &^= wantVerify // the root is placed under nothing; a list alone needs no parent
	}
	return w
}

// ended handles the end of the source, if it ended: a server that can no
// longer keep the recursive watch (a rolling downgrade) moves the cache
// to one-shot watches, which read every node again; anything else stops
// the cache. False when the cache must stop.
func (l *loop) ended(ctx context.Context) bool {
	ended, err := l.c.in.takeEnd()
	switch {
	case !ended:
		return true
	case errors.Is(err, framework.ErrUnimplemented) && ctx.Err() == nil:
		l.c.log().Info("the server can no longer keep the recursive watch; caching with one-shot watches", "path", l.c.path)
		l.src = newOneShotSource(l.c)
		l.c.in.takeCatch()
		l.pend(l.c.path, wantData|wantList)
		for _, p := range l.c.tree.paths() {
			l.pend(p, wantData|wantList)
		}
		return true
	}
	l.stop(ctx, err)
	return false
}

// stop records err as why the cache stopped, unless ctx ended first.
func (l *loop) stop(ctx context.Context, err error) {
	if err != nil && ctx.Err() == nil {
		l.c.life.Stopped(err)
	}
}

// settle reads until nothing is pending; false when the cache must stop.
func (l *loop) settle(ctx context.Context) bool {
	for {
		if ctx.Err() != nil || !l.ended(ctx) {
			return false
		}
		if since, ok := l.c.in.takeCatch(); ok {
			// The notifications the catch-up's question drew came before
			// its answer: they join what it reports, read once.
			if err := l.catchUp(ctx, since); err != nil {
				l.c.in.catchUp(since)
				if !l.failed(ctx, "catch up", err) {
					return false
				}
				continue
			}
		}
		reqs := l.take()
		if len(reqs) == 0 {
			return true
		}
		results, err := l.src.read(ctx, reqs)
		if err != nil {
			for _, r := range reqs {
				l.pend(r.path, r.want)
			}
			if !l.failed(ctx, "read", err) {
				return false
			}
			continue
		}
		l.apply(results)
	}
}

// catchUp asks which cached nodes changed after since, and pends them.
func (l *loop) catchUp(ctx context.Context, since int64) error {
	present := l.c.tree.paths()
	var absent []string
	if len(present) == 0 {
		absent = []string{l.c.path}
	}
	reqs, err := l.src.catchUp(ctx, since, present, absent)
	if err != nil {
		return err
	}
	for _, r := range reqs {
		l.pend(r.path, r.want)
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
		l.stop(ctx, err)
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

// take empties the inbox's reads into requests, parents before children.
func (l *loop) take() []request {
	type ranked struct {
		request
		depth int
	}
	reads := l.c.in.takeReads()
	rs := make([]ranked, 0, len(reads))
	for p, w := range reads {
		if w = l.c.wanted(p, w); w != 0 {
			rs = append(rs, ranked{request{path: p, want: w}, depth(l.c.path, p)})
		}
	}
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
