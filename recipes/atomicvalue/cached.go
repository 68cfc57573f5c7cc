package atomicvalue

import (
	"context"
	"fmt"

	"github.com/zkrecipes/zkrecipes/framework"
)

// CachedLong hands out the numbers of a Long one at a time from chunks it
// takes with one Add each (Curator's CachedAtomicLong), so that most
// numbers cost no request. Each number is handed out once across every
// process that takes chunks of the same Long, Go or Java; numbers of a
// chunk the process does not use up, or of an Add whose outcome is
// unknown, are never handed out. It is safe for concurrent use.
type CachedLong struct {
	long  *Long
	chunk int64
	turn  chan struct{} // one token: the caller holding it owns the fields below

	taken Result[int64] // the Add that took the current chunk
	have  bool          // taken is a chunk not used up
	index int64         // numbers of it handed out
}

// NewCachedLong returns the numbers of the Long at path, taken chunk at a
// time; chunk must be positive. The options are the Long's. It checks its
// arguments and does no I/O.
func NewCachedLong(client *framework.Client, path string, chunk int, opts ...Option) (*CachedLong, error) {
	if chunk <= 0 {
		return nil, fmt.Errorf("%w: chunk size %d must be positive", ErrInvalidArgument, chunk)
	}
	l, err := NewLong(client, path, opts...)
	if err != nil {
		return nil, err
	}
	return &CachedLong{long: l, chunk: int64(chunk), turn: make(chan struct{}, 1)}, nil
}

// Path returns the path of the Long's node.
func (c *CachedLong) Path() string { return c.long.Path() }

// Next hands out the next number, as Increment would: PostValue is the
// number, PreValue the one before it. When the chunk is used up it takes
// the next with Add; that Add's Result, when it did not succeed, is
// returned as it is (Succeeded false), as is its error; when it succeeded,
// its Stats are this Next's (zero for a number from a chunk taken before).
// Callers wait for
// each other only while one of them takes a chunk.
func (c *CachedLong) Next(ctx context.Context) (Result[int64], error) {
	select {
	case c.turn <- struct{}{}:
	case <-ctx.Done():
		return Result[int64]{}, fmt.Errorf("atomicvalue: next %s: %w", c.Path(), ctx.Err())
	}
	defer func() { <-c.turn }()
	var stats Stats
	if !c.have {
		r, err := c.long.Add(ctx, c.chunk)
		if err != nil || !r.Succeeded {
			return r, err
		}
		c.taken, c.have, c.index, stats = r, true, 0, r.Stats
	}
	pre := c.taken.PreValue + c.index
	c.index++
	if c.index == c.chunk {
		c.have = false
	}
	return Result[int64]{Succeeded: true, PreValue: pre, PostValue: pre + 1, Stats: stats}, nil
}
