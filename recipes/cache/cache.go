package cache

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/petermattis/goid"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// Cache is a node and its subtree kept in memory and current, from one
// recursive watch of the client's (one-shot watches on a server before
// ZooKeeper 3.6). Make it with New, add listeners, then Start it.
type Cache struct {
	client *framework.Client
	path   string
	opts   options

	mu        sync.RWMutex
	tree      *tree
	listeners []*Listener
	started   bool
	closed    bool
	err       error

	ctx         context.Context // Start's, ended at Close
	cancel      context.CancelFunc
	initialized chan struct{} // closed once Initialized was delivered
	done        chan struct{} // closed when the cache's goroutine has stopped
	loopID      atomic.Int64  // that goroutine's id
}

// New returns a cache of the node at path and its subtree, with the
// client's namespace. It validates and does no I/O: Start loads it.
func New(client *framework.Client, path string, opts ...Option) (*Cache, error) {
	if client == nil {
		return nil, fmt.Errorf("cache: %w: nil client", ErrInvalidArgument)
	}
	if err := zkpath.Validate(path); err != nil {
		return nil, fmt.Errorf("cache %s: %w: %w", path, ErrInvalidArgument, err)
	}
	o := options{maxDepth: -1}
	for _, opt := range opts {
		if opt == nil {
			return nil, fmt.Errorf("cache %s: %w: nil option", path, ErrInvalidArgument)
		}
		if err := opt(&o); err != nil {
			return nil, fmt.Errorf("cache %s: %w", path, err)
		}
	}
	return &Cache{
		client: client, path: path, opts: o, tree: newTree(),
		initialized: make(chan struct{}), done: make(chan struct{}),
	}, nil
}

// Path returns the cache's root, as given to New.
func (c *Cache) Path() string { return c.path }

// AddListener adds fn to the listeners and returns a function that removes
// it. A listener added before Start hears every event, the Created
// events of the first load included; one added later hears what comes
// after (read the tree with Entries to catch up).
func (c *Cache) AddListener(fn Listener) (remove func()) {
	l := &fn
	c.mu.Lock()
	c.listeners = append(c.listeners[:len(c.listeners):len(c.listeners)], l)
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, m := range c.listeners {
			if m == l {
				c.listeners = append(c.listeners[:i:i], c.listeners[i+1:]...)
				return
			}
		}
	}
}

// Start starts the cache, in the background: from now until ctx ends or
// Close is called, it sets its watch, loads the subtree (Created events,
// then Initialized) and follows the server. It returns at once;
// AwaitInitialized waits for the first complete load. A server that
// cannot be reached delays the load, never ends the cache. When ctx ends,
// the cache stops as by Close and Err returns ctx's error: pass a context
// that lives as long as the cache, not one bounded to the call. Start may
// be called once: again, it returns ErrStarted; after Close, ErrClosed;
// with ctx ended already, ctx's error, and the cache stays unstarted.
func (c *Cache) Start(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closed:
		return fmt.Errorf("cache %s: start: %w", c.path, ErrClosed)
	case c.started:
		return fmt.Errorf("cache %s: start: %w", c.path, ErrStarted)
	case ctx.Err() != nil:
		return fmt.Errorf("cache %s: start: %w", c.path, ctx.Err())
	}
	c.started = true
	c.ctx, c.cancel = context.WithCancel(ctx)
	// Ends when ctx ends, at Close, or when the client is closed.
	go func() {
		c.loopID.Store(goid.Get())
		c.run()
	}()
	return nil
}

// AwaitInitialized waits until the first complete load was delivered
// (Initialized), ctx ends, or the cache stops. It returns nil once
// initialized, ctx's error, or why the cache stopped (ErrClosed after
// Close). It may be called from any goroutine, any number of times.
func (c *Cache) AwaitInitialized(ctx context.Context) error {
	select {
	case <-c.initialized:
		return nil
	default:
	}
	c.mu.RLock()
	unstartedAndClosed := c.closed && !c.started
	c.mu.RUnlock()
	if unstartedAndClosed {
		return fmt.Errorf("cache %s: %w", c.path, ErrClosed)
	}
	select {
	case <-c.initialized:
		return nil
	case <-c.done:
		if err := c.Err(); err != nil {
			return fmt.Errorf("cache %s: %w", c.path, err)
		}
		return fmt.Errorf("cache %s: %w", c.path, ErrClosed)
	case <-ctx.Done():
		return fmt.Errorf("cache %s: await initialized: %w", c.path, ctx.Err())
	}
}

// closeBound bounds the removal of the watch once the cache stops: an
// unreachable server keeps it until the connection ends.
const closeBound = 10 * time.Second

// open sets the watch: a recursive one (a persistent one for the root
// alone) where the server has them, one-shot ones where it has not.
func (c *Cache) open(ctx context.Context) (source, error) {
	mode := framework.WatchRecursive
	if c.opts.maxDepth == 0 {
		mode = framework.WatchPersistent
	}
	w, err := c.client.Watch(ctx, c.path, mode)
	switch {
	case errors.Is(err, framework.ErrUnimplemented):
		c.log().Debug("the server has no persistent watches; caching with one-shot watches", "path", c.path)
		return newOneShotSource(c), nil
	case err != nil:
		return nil, err
	}
	return newWatchSource(c, w), nil
}

// Close stops the cache and removes its watch from the server, and
// returns once the cache's goroutine has stopped (or ctx ended). The
// cached tree stays readable as it was. Close may be called more than
// once, and from a listener (it then returns without waiting for the
// cache's goroutine, which is the caller's).
func (c *Cache) Close(ctx context.Context) error {
	c.mu.Lock()
	started := c.started
	c.closed = true
	if c.cancel != nil {
		c.cancel()
	}
	c.mu.Unlock()
	if !started || goid.Get() == c.loopID.Load() {
		return nil
	}
	select {
	case <-c.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("cache %s: close: %w", c.path, ctx.Err())
	}
}

// Done returns a channel closed once the cache has stopped: Start's ctx
// ended, Close was called, or the client was closed (Err says which).
// Before Start it stays open.
func (c *Cache) Done() <-chan struct{} { return c.done }

// Err returns why the cache stopped on its own: Start's ctx ended (its
// error), or the client was closed under it (an error wrapping
// ErrClosed). Nil while the cache runs, and after Close.
func (c *Cache) Err() error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.err
}

// stopped records why the cache stopped, unless Close stopped it.
func (c *Cache) stopped(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.err != nil {
		return
	}
	c.err = err
}

// Get returns the cached node at path.
func (c *Cache) Get(path string) (Entry, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	n, ok := c.tree.nodes[path]
	if !ok {
		return Entry{}, false
	}
	return n.entry(path), true
}

// Children returns the sorted names of the cached children of the node
// at path, and whether that node is cached.
func (c *Cache) Children(path string) ([]string, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if _, ok := c.tree.nodes[path]; !ok {
		return nil, false
	}
	return c.tree.children(path), true
}

// Entries returns every cached node, sorted by path: one consistent
// view, as of the events delivered so far.
func (c *Cache) Entries() []Entry {
	c.mu.RLock()
	out := make([]Entry, 0, len(c.tree.nodes))
	for p, n := range c.tree.nodes {
		out = append(out, n.entry(p))
	}
	c.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Len returns the number of cached nodes.
func (c *Cache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.tree.nodes)
}

// emit delivers ev to every listener, on the cache's goroutine.
func (c *Cache) emit(ev Event) {
	c.mu.RLock()
	ls := c.listeners
	c.mu.RUnlock()
	for _, l := range ls {
		(*l)(ev)
	}
}
