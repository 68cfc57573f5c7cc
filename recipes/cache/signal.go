package cache

import (
	"context"

	"github.com/go-zookeeper/zk"
)

// want is what the cache must read of a node.
type want uint8

const (
	wantData want = 1 << iota // its data and Stat (whether it exists)
	wantList                  // the names of its children
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
	listed   bool  // the list read succeeded
	err      error // of this node's read, other than a missing node
}

// source is where a cache's signals come from and how it reads: through
// a recursive watch and multi-reads, or through one-shot watches.
type source interface {
	signals() <-chan signal
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
