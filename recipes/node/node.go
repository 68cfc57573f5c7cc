package node

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Node is a node that stays while the process wants it (Curator's
// PersistentNode): created at Start, created again after its session is
// lost or someone deletes it, its data kept as SetData last set it, and
// deleted at Close. Make it with New.
type Node struct {
	client *framework.Client
	path   string
	mode   framework.CreateMode
	opts   options

	// turn is held by the one writer of the node's data at a time: a
	// SetData, or the node's goroutine writing the data a create lacked.
	turn chan struct{}

	mu        sync.Mutex
	data      []byte
	gen       uint64        // data's version: 1 for New's, one more at each SetData
	written   uint64        // the version of the data in node on the server; 0: not known
	changed   chan struct{} // closed and replaced when node or written changes
	node      string        // the node's path; "" while there is none
	owner     int64         // the session the node's create ran in
	prevOwner int64         // the session of the node before, whose node may linger
	listeners recipe.Listeners[Event]
	life      *recipe.Background

	ctx     context.Context // of the node's goroutine, set as it starts
	wake    chan struct{}   // a reconnect
	created chan struct{}   // closed at the first create
	quit    bool            // the client was closed: stop (the node's goroutine only)
	// unsureWrites are the writes since the node was last known whose
	// outcome is not known (the node's goroutine only).
	unsureWrites []unsureWrite

	// sidecar, if set, runs beside the node's goroutine until its ctx
	// ends (a TTLNode's touching); the node is deleted after it ends.
	sidecar func(ctx context.Context)
}

// New returns a node of mode at path with data, with the client's
// namespace. Sequential modes are created protected (see WithProtection)
// unless WithoutProtection, so that a lost answer never leaves two nodes.
// New validates and does no I/O: Start creates the node.
func New(client *framework.Client, path string, mode framework.CreateMode, data []byte, opts ...Option) (*Node, error) {
	if mode == framework.Container {
		return nil, fmt.Errorf("node %s: %w: mode %v (NewTTL keeps a container alive)", path, ErrInvalidArgument, mode)
	}
	return newNode(client, path, mode, data, opts...)
}

// newNode is New with container mode allowed, for a TTLNode's node.
func newNode(client *framework.Client, path string, mode framework.CreateMode, data []byte, opts ...Option) (*Node, error) {
	if client == nil {
		return nil, fmt.Errorf("node: %w: nil client", ErrInvalidArgument)
	}
	if err := zkpath.Validate(path); err != nil || path == "/" {
		return nil, fmt.Errorf("node %s: %w: not a path a node can have", path, ErrInvalidArgument)
	}
	var o options
	for _, opt := range opts {
		if opt == nil {
			return nil, fmt.Errorf("node %s: %w: nil option", path, ErrInvalidArgument)
		}
		if err := opt(&o); err != nil {
			return nil, fmt.Errorf("node %s: %w", path, err)
		}
	}
	ttlMode := mode == framework.PersistentTTL || mode == framework.PersistentSequentialTTL
	switch {
	case mode < framework.Persistent || mode > framework.PersistentSequentialTTL:
		return nil, fmt.Errorf("node %s: %w: mode %v", path, ErrInvalidArgument, mode)
	case ttlMode != (o.ttl > 0):
		return nil, fmt.Errorf("node %s: %w: a TTL mode needs WithTTL, and WithTTL a TTL mode", path, ErrInvalidArgument)
	}
	if o.plain && (mode != framework.EphemeralSequential || o.protected) {
		return nil, fmt.Errorf("node %s: %w: WithoutProtection is for an ephemeral sequential node, and not with WithProtection", path, ErrInvalidArgument)
	}
	if mode.IsSequential() && !o.plain {
		o.protected = true
	}
	return &Node{
		client: client, path: path, mode: mode, opts: o, data: bytes.Clone(data), gen: 1,
		turn: make(chan struct{}, 1), changed: make(chan struct{}),
		life: recipe.NewBackground("node " + path), wake: make(chan struct{}, 1), created: make(chan struct{}),
	}, nil
}

// Path returns the path given to New. Node returns the node's own.
func (n *Node) Path() string { return n.path }

// Node returns the node's path (with its protection id and sequence
// number, if it has them), relative to the namespace; "" while there is
// no node (before the first create, or while it is created again).
func (n *Node) Node() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.node
}

// AddListener adds l to the listeners and returns a function that removes
// it.
func (n *Node) AddListener(l Listener) (remove func()) { return n.listeners.Add(l) }

// Start starts the node, in the background: from now until ctx ends or
// Close is called, it creates the node and creates it again whenever it
// is gone. It returns at once; AwaitCreated waits for the first create.
// When ctx ends, the node stops as by Close (its node is deleted) and
// Err returns ctx's error: pass a context that lives as long as the
// node. Start may be called once: again, it returns ErrStarted; after
// Close, ErrClosed; with ctx ended already, ctx's error, and the node
// stays unstarted.
func (n *Node) Start(ctx context.Context) error { return n.life.Start(ctx, n.run) }

// poke wakes the node's goroutine to look at its node.
func (n *Node) poke() {
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// AwaitCreated waits until the node was first created, ctx ends, or the
// node stops: nil once created, ctx's error, or why it stopped.
func (n *Node) AwaitCreated(ctx context.Context) error {
	return n.life.Await(ctx, n.created, "await created")
}

// Close stops the node and deletes its node, and returns once both are
// done or ctx ended. Close may be called more than once, and from a
// listener (it then returns without waiting for the node's goroutine,
// which is the caller's, and the goroutine deletes the node as it ends).
func (n *Node) Close(ctx context.Context) error { return n.life.Close(ctx) }

// Done returns a channel closed once the node has stopped and its node
// was deleted (or could not be, the client being closed).
func (n *Node) Done() <-chan struct{} { return n.life.Done() }

// Err returns why the node stopped on its own: Start's ctx ended (its
// error), or the client was closed (an error wrapping ErrClosed). Nil
// while it runs, and after Close.
func (n *Node) Err() error { return n.life.Err() }

// emit delivers ev to every listener, on the node's goroutine.
func (n *Node) emit(ev Event) { n.listeners.Emit(ev) }
