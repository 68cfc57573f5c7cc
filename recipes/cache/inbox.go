package cache

import "sync"

// inbox is what the cache's goroutine must do next, asked by its source
// and by its own reads: the nodes to read, one entry per path with what
// to read of it, whether to catch up (after which zxid), and whether the
// source ended. The recursive watch puts into it on the client's reading
// goroutine, before the replies that follow a notification are handed
// on: once a read returns, every notification the server sent before its
// reply is here, and the cache's next take hands it over. Putting never
// blocks and calls nothing: a lock held for a map's update, and a wake-up
// dropped when one is waiting already. Its memory is bounded by the paths
// named since the last take, not by the notifications: a node written a
// thousand times while the cache reads is one entry, and a path named is
// one under the root that was there since the last take, so a take never
// finds more entries than the nodes the subtree had or made meanwhile.
type inbox struct {
	mu    sync.Mutex
	reads map[string]want
	catch bool // a catch-up is asked, after since
	since int64
	ended bool // the source ended, for err
	err   error
	wake  chan struct{} // room for one wake-up
}

func newInbox() *inbox {
	return &inbox{reads: make(map[string]want), wake: make(chan struct{}, 1)}
}

// read asks for a read of w of the node at p, and wakes the cache.
func (b *inbox) read(p string, w want) {
	b.add(p, w)
	b.signal()
}

// add is read without the wake-up: the cache's goroutine's own asking.
func (b *inbox) add(p string, w want) {
	b.mu.Lock()
	b.reads[p] |= w
	b.mu.Unlock()
}

// catchUp asks for a catch-up after since: after the earliest asked
// until one is taken.
func (b *inbox) catchUp(since int64) {
	b.mu.Lock()
	if !b.catch || since < b.since {
		b.since = since
	}
	b.catch = true
	b.mu.Unlock()
	b.signal()
}

// end tells that the source ended, for err.
func (b *inbox) end(err error) {
	b.mu.Lock()
	b.ended, b.err = true, err
	b.mu.Unlock()
	b.signal()
}

func (b *inbox) signal() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// ready returns a channel that has a value once something was asked since
// the last wake-up taken from it.
func (b *inbox) ready() <-chan struct{} { return b.wake }

// takeReads returns the reads asked for, and forgets them.
func (b *inbox) takeReads() map[string]want {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.reads) == 0 {
		return nil // the map stays the inbox's
	}
	reads := b.reads
	b.reads = make(map[string]want) // not clear: a load's table would stay allocated
	return reads
}

// takeCatch returns the zxid to catch up after, if a catch-up is asked,
// and forgets it.
func (b *inbox) takeCatch() (since int64, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	since, ok = b.since, b.catch
	b.catch = false
	return since, ok
}

// takeEnd returns whether the source ended, and why, and forgets it.
func (b *inbox) takeEnd() (ended bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ended, err = b.ended, b.err
	b.ended, b.err = false, nil
	return ended, err
}

// reset forgets everything asked: a watch that failed as it was set may
// have told something, its end included, that is not the cache's.
func (b *inbox) reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reads = make(map[string]want)
	b.catch, b.since, b.ended, b.err = false, 0, false, nil
}
