package cache

import (
	"context"
	"sync"

	"github.com/go-zookeeper/zk"
)

// want is what the cache must read of a node.
type want uint8

const (
	wantData want = 1 << iota // its data and Stat (whether it exists)
	wantList                  // the names of its children
	// wantVerify reads the parent's data and Stat too, after the node's
	// own reads: whether the parent's incarnation the cache holds still
	// lived when the node was read (see loop.placed).
	wantVerify
)

// signal is what a source tells the cache: read a node, catch up after
// zxid, or the source ended.
type signal struct {
	path  string
	want  want
	since int64 // catch up: every change after it may be unknown
	catch bool
	ended bool
	err   error // why the source ended
}

// request is one node to read; result its answer.
type request struct {
	path string
	want want
}

type result struct {
	request
	exists   bool // the data read found the node
	data     []byte
	stat     zk.Stat
	children []string
	listed   bool    // the list read succeeded
	err      error   // of this node's read, other than a missing node
	verify   *result // the parent's read after the node's, for wantVerify
}

// inbox is where signals wait for the cache's goroutine, without bound:
// put never blocks, so the recursive watch's source puts on the client's
// own goroutine, and take hands over every signal put so far. A signal
// put before a reply was handed on is taken by the first take after the
// read returns.
type inbox struct {
	mu    sync.Mutex
	queue []signal
	wake  chan struct{} // room for one wake-up
}

func newInbox() *inbox { return &inbox{wake: make(chan struct{}, 1)} }

func (b *inbox) put(s signal) {
	b.mu.Lock()
	b.queue = append(b.queue, s)
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// ready returns a channel that has a value once something was put since
// the last wake-up taken from it.
func (b *inbox) ready() <-chan struct{} { return b.wake }

func (b *inbox) take() []signal {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.queue
	b.queue = nil
	return q
}

// source is where a cache's signals come from and how it reads: through
// a recursive watch and multi-reads, or through one-shot watches. Either
// puts its signals in the cache's inbox.
type source interface {
	// read reads the nodes of reqs; its error is for all of them.
	read(ctx context.Context, reqs []request) ([]result, error)
	// catchUp returns what changed after since of the nodes present
	// (cached) and absent (the root, when not cached).
	catchUp(ctx context.Context, since int64, present, absent []string) ([]signal, error)
	close(ctx context.Context)
	// listsEveryNode tells whether every node's children must be read,
	// even when it has none: a one-shot child watch is set by the read.
	listsEveryNode() bool
}
