package sharedcount

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Value is a count and the version of the node it was read from, the
// version a compare-and-set (TrySet) is made against.
type Value struct {
	// Count is the shared count.
	Count int32
	// Version is the count node's data version (ZooKeeper's Stat.Version).
	Version int32
}

// SharedCount is a count shared through the node at one path, in Curator's
// SharedCount format. It is safe for concurrent use.
type SharedCount struct {
	client *framework.Client
	path   string
	seed   int32
	opts   options

	mu       sync.Mutex    // guards the cache below
	cache    Value         // the value read when the outstanding watch was set
	cacheErr error         // why cache is not a count (ErrMalformedCount), or nil
	valid    bool          // a watch is outstanding on cache: it is current
	changed  chan struct{} // closed when that watch fires
}

// New returns the shared count at path, created with seed by the first read
// that finds it missing. It checks its arguments and does no I/O.
func New(client *framework.Client, path string, seed int32, opts ...Option) (*SharedCount, error) {
	if err := recipe.CheckPath(client, path, ErrInvalidArgument); err != nil {
		return nil, err
	}
	o, err := recipe.Options(opts, ErrInvalidArgument)
	if err != nil {
		return nil, err
	}
	return &SharedCount{client: client, path: path, seed: seed, opts: o}, nil
}

// Path returns the count node's path.
func (s *SharedCount) Path() string { return s.path }

// Get reads the count and its version from the server, creating the node
// with the seed if it is missing (unless WithoutCreate was given).
func (s *SharedCount) Get(ctx context.Context) (Value, error) {
	for {
		data, stat, err := s.client.Get(ctx, s.path)
		if recipe.IsNoNode(err) && !s.opts.noCreate {
			if _, err := s.create(ctx, s.seed); err != nil {
				return Value{}, err
			}
			continue
		}
		if err != nil {
			return Value{}, fmt.Errorf("sharedcount: get %s: %w", s.path, err)
		}
		return decode(s.path, data, stat)
	}
}

// Set writes n whatever the current version, creating the node with n if
// it is missing (unless WithoutCreate was given).
func (s *SharedCount) Set(ctx context.Context, n int32) error {
	for {
		_, err := s.client.Set(ctx, s.path, Encode(n), -1)
		if recipe.IsNoNode(err) && !s.opts.noCreate {
			created, err := s.create(ctx, n)
			if err != nil {
				return err
			}
			if !created {
				continue // someone created it first: set it over theirs
			}
			s.forget()
			return nil
		}
		if err != nil {
			return fmt.Errorf("sharedcount: set %s: %w", s.path, err)
		}
		s.forget()
		return nil
	}
}

// TrySet writes n only if the node's version is still expectedVersion, and
// reports whether it did: false means another write came first (or the node
// is gone), and the caller should Get and decide again. A write that the
// server applied is never reported as not applied: when its answer was
// lost and the client cannot tell whether it ran (its retry met a version
// that its own run would have made, or it gave up), the error wraps
// ErrOutcomeUnknown. The write then ran once or not at all; Get tells the
// count, not who wrote it, so a caller that must count each of its writes
// exactly once stops there rather than trying again.
func (s *SharedCount) TrySet(ctx context.Context, n, expectedVersion int32) (bool, error) {
	_, err := s.client.Set(ctx, s.path, Encode(n), expectedVersion)
	switch {
	case errors.Is(err, ErrOutcomeUnknown):
		return false, fmt.Errorf("sharedcount: try-set %s: %w", s.path, err)
	case errors.Is(err, zk.ErrBadVersion), recipe.IsNoNode(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("sharedcount: try-set %s: %w", s.path, err)
	}
	s.forget()
	return true, nil
}

// create makes the count node holding n, with container parents, and
// reports false if it found the node made by someone else.
func (s *SharedCount) create(ctx context.Context, n int32) (bool, error) {
	_, err := s.client.Create(ctx, s.path, Encode(n), framework.Persistent, framework.WithParents())
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, zk.ErrNodeExists):
		return false, nil
	}
	return false, fmt.Errorf("sharedcount: create %s: %w", s.path, err)
}

// Encode returns n as a count node holds it: 4 bytes, big-endian.
func Encode(n int32) []byte {
	return binary.BigEndian.AppendUint32(make([]byte, 0, 4), uint32(n))
}

// Decode reads a count node's data; data that is not 4 bytes long is
// ErrMalformedCount.
func Decode(data []byte) (int32, error) {
	if len(data) != 4 {
		return 0, fmt.Errorf("%w: %d bytes", ErrMalformedCount, len(data))
	}
	return int32(binary.BigEndian.Uint32(data)), nil
}

func decode(path string, data []byte, stat *zk.Stat) (Value, error) {
	n, err := Decode(data)
	if err != nil {
		return Value{}, fmt.Errorf("sharedcount: %s: %w", path, err)
	}
	return Value{Count: n, Version: stat.Version}, nil
}
