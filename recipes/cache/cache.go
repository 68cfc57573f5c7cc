package cache

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Cache is a node and its subtree kept in memory and current, from one
// recursive watch of the client's (one-shot watches on a server before
// ZooKeeper 3.6). Make it with New, add listeners, then Start it.
type Cache struct {
	client *framework.Client
	path   string
	opts   options

	tree      *store
	listeners recipe.Listeners[Event]
	life      *recipe.Background

	in          *inbox        // what the cache's goroutine must read next
	initialized chan struct{} // closed once Initialized was delivered
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
		client: client, path: path, opts: o, tree: newStore(path),
		life: recipe.NewBackground("cache " + path), in: newInbox(), initialized: make(chan struct{}),
	}, nil
}

// Path returns the cache's root, as given to New.
func (c *Cache) Path() string { return c.path }

// AddListener adds fn to the listeners and returns a function that removes
// it. A listener added before Start hears every event, the Created
// events of the first load included; one added later hears what comes
// after (read the tree with Entries to catch up).
func (c *Cache) AddListener(fn Listener) (remove func()) { return c.listeners.Add(fn) }

// Start starts the cache, in the background: from now until ctx ends or
// Close is called, it sets its watch, loads the subtree (Created events,
// then Initialized) and follows the server. It returns at once;
// AwaitInitialized waits for the first complete load. A server that
// cannot be reached delays the load, never ends the cache. When ctx ends,
// the cache stops as by Close and Err returns ctx's error: pass a context
// that lives as long as the cache, not one bounded to the call. Start may
// be called once: again, it returns ErrStarted; after Close, ErrClosed;
// with ctx ended already, ctx's error, and the cache stays unstarted.
func (c *Cache) Start(ctx context.Context) error { return c.life.Start(ctx, c.run) }

// AwaitInitialized waits until the first complete load was delivered
// (Initialized), ctx ends, or the cache stops. It returns nil once
// initialized, ctx's error, or why the cache stopped (ErrClosed after
// Close). It may be called from any goroutine, any number of times.
func (c *Cache) AwaitInitialized(ctx context.Context) error {
	return c.life.Await(ctx, c.initialized, "await initialized")
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
	src, err := openWatchSource(ctx, c, mode)
	switch {
	case errors.Is(err, framework.ErrUnimplemented):
		c.log().Debug("the server has no persistent watches; caching with one-shot watches", "path", c.path)
		return newOneShotSource(c), nil
	case err != nil:
		return nil, err
	}
	return src, nil
}

// Close stops the cache and removes its watch from the server, and
// returns once the cache's goroutine has stopped (or ctx ended). The
// cached tree stays readable as it was. Close may be called more than
// once, and from a listener (it then returns without waiting for the
// cache's goroutine, which is the caller's).
func (c *Cache) Close(ctx context.Context) error { return c.life.Close(ctx) }

// Done returns a channel closed once the cache has stopped: Start's ctx
// ended, Close was called, or the client was closed (Err says which).
// Before Start it stays open.
func (c *Cache) Done() <-chan struct{} { return c.life.Done() }

// Err returns why the cache stopped on its own: Start's ctx ended (its
// error), or the client was closed under it (an error wrapping
// ErrClosed). Nil while the cache runs, and after Close.
func (c *Cache) Err() error { return c.life.Err() }

// Get returns the cached node at path.
func (c *Cache) Get(path string) (Entry, bool) { return c.tree.get(path) }

// Children returns the sorted names of the cached children of the node
// at path, and whether that node is cached.
func (c *Cache) Children(path string) ([]string, bool) { return c.tree.children(path) }

// Entries returns every cached node, sorted by path: one consistent
// view, as of the events delivered so far. The paths are built in one
// string, which an Entry kept keeps whole.
func (c *Cache) Entries() []Entry { return c.tree.entries() }

// Len returns the number of cached nodes.
func (c *Cache) Len() int { return c.tree.len() }

// emit delivers ev to every listener, on the cache's goroutine.
func (c *Cache) emit(ev Event) { c.listeners.Emit(ev) }
