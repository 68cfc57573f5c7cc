package cache

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
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

	ctx         context.Context // ends at Close
	cancel      context.CancelFunc
	initialized chan struct{} // closed once Initialized was delivered
	done        chan struct{} // closed when the loop has stopped
	loopID      int64         // the loop's goroutine, set before it starts
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
	ctx, cancel := context.WithCancel(context.Background())
	return &Cache{
		client: client, path: path, opts: o, tree: newTree(),
		ctx: ctx, cancel: cancel,
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

// Start sets the cache's watch and loads the subtree, and returns once
// the load is complete and Initialized was delivered. If ctx ends first
// (an unreachable server, a slow load), the cache is closed, nothing of
// it is left on the server, and Start returns ctx's error. Start may be
// called once.
func (c *Cache) Start(ctx context.Context) error {
	c.mu.Lock()
	switch {
	case c.closed:
		c.mu.Unlock()
		return fmt.Errorf("cache %s: %w", c.path, ErrClosed)
	case c.started:
		c.mu.Unlock()
		return fmt.Errorf("cache %s: %w: started twice", c.path, ErrInvalidArgument)
	}
	c.started = true
	c.mu.Unlock()

	src, err := c.open(ctx)
	if err != nil {
		c.shut()
		close(c.done)
		return fmt.Errorf("cache %s: %w", c.path, err)
	}
	ready := make(chan struct{})
	go func() {
		c.loopID = goid.Get()
		close(ready)
		c.run(src)
	}()
	<-ready
	select {
	case <-c.initialized:
		return nil
	case <-c.done:
		return fmt.Errorf("cache %s: %w", c.path, c.Err())
	case <-ctx.Done():
		c.shut() // the cache's goroutine removes the watch
		return fmt.Errorf("cache %s: %w", c.path, ctx.Err())
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

// Close stops the cache and removes its watch from the server. The
// cached tree stays readable as it was. Close may be called more than
// once, and from a listener (it then returns without waiting for the
// cache's goroutine, which is the caller's).
func (c *Cache) Close(ctx context.Context) error {
	c.mu.Lock()
	started := c.started
	c.mu.Unlock()
	c.shut()
	if !started || goid.Get() == c.loopID {
		return nil
	}
	select {
	case <-c.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("cache %s: close: %w", c.path, ctx.Err())
	}
}

// shut marks the cache closed and ends its context.
func (c *Cache) shut() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.cancel()
}

// Err returns why the cache stopped on its own: an error wrapping
// ErrClosed when its client was closed. Nil while it runs, and after
// Close.
func (c *Cache) Err() error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.err
}

// Get returns the cached node at path.
func (c *Cache) Get(path string) (Entry, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.tree.nodes[path]
	if !ok {
		return Entry{}, false
	}
	return *e, true
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
	for _, e := range c.tree.nodes {
		out = append(out, *e)
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
