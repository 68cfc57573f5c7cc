package sharedcount

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// Cached returns the count as last seen by the count's watch, and a channel
// that is closed when the count may have changed (the watch fired: the node
// changed or was deleted, the session expired, or the client was closed).
// When no watch is outstanding it reads the node and sets one (one request,
// creating a missing node as Get does); otherwise it asks nothing of the
// server. A waiter that must follow the count, like a counted semaphore,
// calls Cached again after each close of the channel.
//
// Data that is not a count gives an error wrapping ErrMalformedCount
// together with the channel, so the caller can wait for a repair; other
// errors give a nil channel.
func (s *SharedCount) Cached(ctx context.Context) (Value, <-chan struct{}, error) {
	if v, changed, err, ok := s.fromCache(); ok {
		return v, changed, err
	}
	data, stat, watch, err := s.getW(ctx)
	if err != nil {
		return Value{}, nil, err
	}
	v, derr := decode(s.path, data, stat)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.valid {
		// Another caller set a watch meanwhile; keep one cache. Our watch
		// channel is buffered and go-zookeeper drops it when it fires.
		return s.cache, s.changed, s.cacheErr
	}
	s.cache, s.cacheErr, s.valid = v, derr, true
	s.changed = make(chan struct{})
	// Ends when the watch fires, which it does at the next change of the
	// node, at session expiry, or when the client is closed.
	go s.await(watch, s.changed)
	return v, s.changed, derr
}

// fromCache returns the cached value if a watch keeps it current.
func (s *SharedCount) fromCache() (Value, <-chan struct{}, error, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cache, s.changed, s.cacheErr, s.valid
}

// await invalidates the cache of generation changed when its watch fires,
// and closes changed.
func (s *SharedCount) await(watch <-chan zk.Event, changed chan struct{}) {
	<-watch
	s.mu.Lock()
	if s.changed == changed {
		s.valid = false
	}
	s.mu.Unlock()
	close(changed)
}

// forget drops the cache after a write of our own, whose watch event may
// not have been handled yet: the next Cached reads the node again.
func (s *SharedCount) forget() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.valid = false
}

// getW reads the node with a watch, creating it if it is missing.
func (s *SharedCount) getW(ctx context.Context) ([]byte, *zk.Stat, <-chan zk.Event, error) {
	for {
		data, stat, watch, err := s.client.GetW(ctx, s.path)
		if errors.Is(err, zk.ErrNoNode) && !s.opts.noCreate {
			if _, err := s.create(ctx, s.seed); err != nil {
				return nil, nil, nil, err
			}
			continue
		}
		if err != nil {
			return nil, nil, nil, fmt.Errorf("sharedcount: get %s: %w", s.path, err)
		}
		return data, stat, watch, nil
	}
}
