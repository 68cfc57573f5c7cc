package discovery

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// ServiceCache keeps the instances of one service in memory, current
// through a cache (recipes/cache) of the service's path: curator-x-
// discovery's ServiceCache. Each instance is decoded once, when its node
// changes, so that reading them costs no request and no decoding. Make it
// with Discovery.Cache.
type ServiceCache[T any] struct {
	name      string
	client    *framework.Client
	cache     *cache.Cache
	closed    atomic.Bool // Close was called
	codec     *Codec[T]
	listeners recipe.Listeners[Event[T]]

	mu     sync.Mutex
	byID   map[string]Instance[T]
	sorted atomic.Pointer[[]Instance[T]] // byID by id, rebuilt at each change; never modified
}

// Cache returns a cache of the instances of the service name. Start it.
func (d *Discovery[T]) Cache(name string) (*ServiceCache[T], error) {
	c, err := cache.New(d.client, d.servicePath(name), cache.WithMaxDepth(1))
	if err != nil {
		return nil, err
	}
	sc := &ServiceCache[T]{name: name, client: d.client, cache: c, codec: d.codec, byID: make(map[string]Instance[T])}
	sc.sorted.Store(&[]Instance[T]{})
	c.AddListener(sc.hear)
	return sc, nil
}

// hear applies a change of an instance's node, on the cache's goroutine,
// and tells the listeners of a change of the instances.
func (sc *ServiceCache[T]) hear(ev cache.Event) {
	if ev.Type == cache.Initialized {
		sc.listeners.Emit(Event[T]{Type: Initialized})
		return
	}
	if ev.Path == sc.cache.Path() {
		return // the service's own node
	}
	id := ev.Path[len(sc.cache.Path())+1:]
	sc.mu.Lock()
	_, had := sc.byID[id]
	var inst *Instance[T]
	if ev.Type != cache.Deleted {
		// Not an instance: left out (Curator's cache keeps what it read
		// before).
		inst, _ = sc.codec.Unmarshal(ev.Entry.Data)
	}
	out := Event[T]{ID: id}
	switch {
	case inst != nil:
		sc.byID[id] = *inst
		out.Type, out.Instance = Registered, *inst
		if had {
			out.Type = Updated
		}
	case had:
		delete(sc.byID, id)
		out.Type = Unregistered
	default:
		sc.mu.Unlock()
		return // nothing the instances show changed
	}
	sc.sortLocked()
	sc.mu.Unlock()
	sc.listeners.Emit(out)
}

// sortLocked publishes byID, sorted by id, for Instances; sc.mu is held.
func (sc *ServiceCache[T]) sortLocked() {
	sorted := make([]Instance[T], 0, len(sc.byID))
	for _, inst := range sc.byID {
		sorted = append(sorted, inst)
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	sc.sorted.Store(&sorted)
}

// Start starts the cache in the background, until ctx ends or Close, as
// cache.Cache.Start does.
func (sc *ServiceCache[T]) Start(ctx context.Context) error { return sc.cache.Start(ctx) }

// AwaitInitialized waits for the first complete read of the service.
func (sc *ServiceCache[T]) AwaitInitialized(ctx context.Context) error {
	return sc.cache.AwaitInitialized(ctx)
}

// Close stops the cache, as cache.Cache.Close does.
func (sc *ServiceCache[T]) Close(ctx context.Context) error {
	sc.closed.Store(true)
	return sc.cache.Close(ctx)
}

// Done returns a channel that is closed once the cache has stopped.
func (sc *ServiceCache[T]) Done() <-chan struct{} { return sc.cache.Done() }

// Err returns why the cache stopped on its own: the cause of Start's ctx,
// or an error wrapping ErrClosed when its client was closed. It is nil
// while the cache runs, and after Close.
func (sc *ServiceCache[T]) Err() error { return sc.cache.Err() }

// stopped returns why the cache no longer follows the service, nil while
// it does or is yet to start: ErrClosed after its Close or its client's
// (at once, before the cache has seen it), else why the cache stopped.
func (sc *ServiceCache[T]) stopped() error {
	if sc.closed.Load() || sc.client.IsClosed() {
		return ErrClosed
	}
	select {
	case <-sc.cache.Done():
		if err := sc.cache.Err(); err != nil {
			return err
		}
		return ErrClosed
	default:
		return nil
	}
}

// Instances returns the service's instances, sorted by id: no request.
func (sc *ServiceCache[T]) Instances() []Instance[T] {
	return append([]Instance[T](nil), *sc.sorted.Load()...)
}

// AddListener calls l with each change of the service's instances and
// once initialized (Curator's ServiceCacheListener.cacheChanged, which
// carries no event), one at a time and in order, on the cache's
// goroutine, until the returned function is called.
func (sc *ServiceCache[T]) AddListener(l func(Event[T])) (remove func()) {
	return sc.listeners.Add(l)
}
