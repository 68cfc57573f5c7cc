package node

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/petermattis/goid"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
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

	mu        sync.Mutex
	data      []byte
	node      string // the node's path; "" while there is none
	owner     int64  // the session the node's create ran in
	prevOwner int64  // the session of the node before, whose node may linger
	listeners []*Listener
	started   bool
	closed    bool
	err       error

	ctx     context.Context // Start's, ended at Close
	cancel  context.CancelFunc
	wake    chan struct{} // a reconnect, or SetData while there is no node
	created chan struct{} // closed at the first create
	done    chan struct{} // closed when the node's goroutine has stopped
	loopID  atomic.Int64
	unhook  func() // removes the client listener

	// sidecar, if set, runs beside the node's goroutine until the node's
	// ctx ends (a TTLNode's touching); the node is deleted after it ends.
	sidecar     func(ctx context.Context)
	sidecarDone chan struct{}
}

// New returns a node of mode at path with data, with the client's
// namespace. Sequential modes are always created protected (see
// WithProtection), so that a lost answer never leaves two nodes. New
// validates and does no I/O: Start creates the node.
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
	if mode.IsSequential() {
		o.protected = true
	}
	return &Node{
		client: client, path: path, mode: mode, opts: o, data: bytes.Clone(data),
		wake: make(chan struct{}, 1), created: make(chan struct{}), done: make(chan struct{}),
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
func (n *Node) AddListener(l Listener) (remove func()) {
	p := &l
	n.mu.Lock()
	n.listeners = append(n.listeners[:len(n.listeners):len(n.listeners)], p)
	n.mu.Unlock()
	return func() {
		n.mu.Lock()
		defer n.mu.Unlock()
		for i, m := range n.listeners {
			if m == p {
				n.listeners = append(n.listeners[:i:i], n.listeners[i+1:]...)
				return
			}
		}
	}
}

// Start starts the node, in the background: from now until ctx ends or
// Close is called, it creates the node and creates it again whenever it
// is gone. It returns at once; AwaitCreated waits for the first create.
// When ctx ends, the node stops as by Close (its node is deleted) and
// Err returns ctx's error: pass a context that lives as long as the
// node. Start may be called once: again, it returns ErrStarted; after
// Close, ErrClosed; with ctx ended already, ctx's error, and the node
// stays unstarted.
func (n *Node) Start(ctx context.Context) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case n.closed:
		return fmt.Errorf("node %s: start: %w", n.path, ErrClosed)
	case n.started:
		return fmt.Errorf("node %s: start: %w", n.path, ErrStarted)
	case ctx.Err() != nil:
		return fmt.Errorf("node %s: start: %w", n.path, ctx.Err())
	}
	n.started = true
	n.ctx, n.cancel = context.WithCancel(ctx)
	n.unhook = n.client.AddListener(func(sc framework.StateChange) {
		if sc.State == framework.Connected || sc.State == framework.Reconnected {
			n.poke()
		}
	})
	n.sidecarDone = make(chan struct{})
	// Ends with the node's ctx.
	go func() {
		defer close(n.sidecarDone)
		if n.sidecar != nil {
			n.sidecar(n.ctx)
		}
	}()
	// Ends when ctx ends, at Close, or when the client is closed.
	go func() {
		n.loopID.Store(goid.Get())
		n.run()
	}()
	return nil
}

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
	n.mu.Lock()
	unstarted := n.closed && !n.started
	n.mu.Unlock()
	if unstarted {
		return fmt.Errorf("node %s: %w", n.path, ErrClosed)
	}
	select {
	case <-n.created:
		return nil
	case <-n.done:
		if err := n.Err(); err != nil {
			return fmt.Errorf("node %s: %w", n.path, err)
		}
		return fmt.Errorf("node %s: %w", n.path, ErrClosed)
	case <-ctx.Done():
		return fmt.Errorf("node %s: await created: %w", n.path, ctx.Err())
	}
}

// SetData sets the node's data: on the server now if the node is there,
// and in every later create. After Close it returns ErrClosed.
func (n *Node) SetData(ctx context.Context, data []byte) error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return fmt.Errorf("node %s: set data: %w", n.path, ErrClosed)
	}
	n.data = bytes.Clone(data)
	node := n.node
	n.mu.Unlock()
	if node == "" {
		return nil // the next create writes it
	}
	if _, err := n.client.Set(ctx, node, data, -1); err != nil && !isNoNode(err) {
		return fmt.Errorf("node %s: set data: %w", n.path, err)
	}
	return nil
}

// Close stops the node and deletes its node, and returns once both are
// done or ctx ended. Close may be called more than once, and from a
// listener (it then returns without waiting for the node's goroutine,
// which is the caller's, and the goroutine deletes the node as it ends).
func (n *Node) Close(ctx context.Context) error {
	n.mu.Lock()
	started := n.started
	n.mu.Unlock()
	n.closing()
	if !started || goid.Get() == n.loopID.Load() {
		return nil
	}
	select {
	case <-n.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("node %s: close: %w", n.path, ctx.Err())
	}
}

// closing marks the node closed and stops its goroutine.
func (n *Node) closing() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closed = true
	if n.cancel != nil {
		n.cancel()
	}
}

// Done returns a channel closed once the node has stopped and its node
// was deleted (or could not be, the client being closed).
func (n *Node) Done() <-chan struct{} { return n.done }

// Err returns why the node stopped on its own: Start's ctx ended (its
// error), or the client was closed (an error wrapping ErrClosed). Nil
// while it runs, and after Close.
func (n *Node) Err() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.err
}

// stopped records why the node stopped, unless Close stopped it.
func (n *Node) stopped(err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.closed && n.err == nil {
		n.err = err
	}
}

// emit delivers ev to every listener, on the node's goroutine.
func (n *Node) emit(ev Event) {
	n.mu.Lock()
	ls := n.listeners
	n.mu.Unlock()
	for _, l := range ls {
		(*l)(ev)
	}
}
