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
	// wantVerify reads the parent's data and Stat too, after the node's
	// own reads: whether the parent's incarnation the cache holds still
	// lived when the node was read (see loop.placed).
	wantVerify
)

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

// source is how a cache hears of changes and how it reads: through a
// recursive watch and multi-reads, or through one-shot watches. Either
// asks for its reads in the cache's inbox.
type source interface {
	// read reads the nodes of reqs; its error is for all of them.
	read(ctx context.Context, reqs []request) ([]result, error)
	// catchUp returns the reads of what changed after since of the nodes
	// present (cached) and absent (the root, when not cached).
	catchUp(ctx context.Context, since int64, present, absent []string) ([]request, error)
	close(ctx context.Context)
	// listsEveryNode tells whether every node's children must be read,
	// even when it has none: a one-shot child watch is set by the read.
	listsEveryNode() bool
}
