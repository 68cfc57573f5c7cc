package discovery

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// Strategy is how a Provider picks an instance, as curator-x-discovery's
// ProviderStrategy.
type Strategy int

const (
	// RoundRobin takes the instances in turn (Curator's
	// RoundRobinStrategy, its default).
	RoundRobin Strategy = iota
	// Random takes one at random (RandomStrategy).
	Random
	// Sticky keeps the instance it took while it is there and up, then
	// takes the next in turn (StickyStrategy over round robin).
	Sticky
)

// Provider picks an instance of a service from a ServiceCache, without a
// request: curator-x-discovery's ServiceProvider. Make it with
// Discovery.Provider and Start it.
type Provider[T any] struct {
	*ServiceCache[T]
	opts providerOptions

	mu     sync.Mutex
	next   int
	sticky string // the Sticky strategy's instance id
	errs   map[string]*downState
}

// downState counts an instance's errors and says until when it is down.
type downState struct {
	count int
	until time.Time
}

// Provider returns a provider of the service name; a bad option, or a
// codec's, is ErrInvalidArgument.
func (d *Discovery[T]) Provider(name string, opts ...Option) (*Provider[T], error) {
	all, err := configure(opts, providerPart)
	if err != nil {
		return nil, fmt.Errorf("discovery provider %s: %w", name, err)
	}
	o := all.provider
	sc, err := d.Cache(name)
	if err != nil {
		return nil, err
	}
	return &Provider[T]{ServiceCache: sc, opts: o, errs: make(map[string]*downState)}, nil
}

// Instance returns an instance that is up, picked by the strategy; an
// error wrapping ErrNoInstance when there is none. It reads the cache's
// current instances in place: no request, no copy. Once the provider no
// longer follows the service, it says why rather than pick from what it
// saw last: an error wrapping ErrClosed after the provider's Close or its
// client's, else the error of the ctx its Start was given.
func (p *Provider[T]) Instance() (Instance[T], error) {
	if err := p.stopped(); err != nil {
		return Instance[T]{}, fmt.Errorf("discovery provider %s: %w", p.name, err)
	}
	all := *p.sorted.Load()
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.opts.strategy == Sticky {
		for i := range all {
			if all[i].ID == p.sticky && p.isUp(&all[i], now) {
				return all[i], nil
			}
		}
	}
	start := p.next
	if p.opts.strategy == Random && len(all) > 0 {
		start = rand.IntN(len(all))
	}
	for k := range all {
		i := (start + k) % len(all)
		if p.isUp(&all[i], now) {
			p.next = i + 1
			p.sticky = all[i].ID
			return all[i], nil
		}
	}
	return Instance[T]{}, fmt.Errorf("%w: %s", ErrNoInstance, p.name)
}

// isUp tells whether inst is enabled and not down; p.mu held.
func (p *Provider[T]) isUp(inst *Instance[T], now time.Time) bool {
	if inst.Disabled {
		return false
	}
	d := p.errs[inst.ID]
	return d == nil || !now.Before(d.until)
}

// NoteError tells the provider that a call to inst failed; after the
// down instance policy's threshold of them, inst is skipped for its
// time.
func (p *Provider[T]) NoteError(inst Instance[T]) {
	p.mu.Lock()
	defer p.mu.Unlock()
	d := p.errs[inst.ID]
	now := time.Now()
	if d == nil || (d.count >= p.opts.threshold && !now.Before(d.until)) {
		d = &downState{}
		p.errs[inst.ID] = d
	}
	d.count++
	if d.count >= p.opts.threshold {
		d.until = now.Add(p.opts.downFor)
	}
}
