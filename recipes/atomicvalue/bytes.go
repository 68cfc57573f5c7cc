package atomicvalue

import (
	"bytes"
	"context"
	"slices"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Bytes is a value held as the bytes of one node, Curator's
// DistributedAtomicValue: any bytes, compared and written whole. It is
// safe for concurrent use.
type Bytes struct {
	e *engine
}

// NewBytes returns the value at path. It checks its arguments and options
// and does no I/O: the node is created by the first update that finds it
// missing.
func NewBytes(client *framework.Client, path string, opts ...Option) (*Bytes, error) {
	e, err := newEngine(client, path, opts)
	if err != nil {
		return nil, err
	}
	return &Bytes{e: e}, nil
}

// Path returns the path of the value's node.
func (b *Bytes) Path() string { return b.e.path }

// Get reads the value: a Result that succeeded, with the node's bytes as
// both PreValue and PostValue; nil if the node does not exist.
func (b *Bytes) Get(ctx context.Context) (Result[[]byte], error) {
	return b.e.get(ctx)
}

// ForceSet writes v whatever the node holds, creating the node if it is
// missing, with no guarantee of atomicity.
func (b *Bytes) ForceSet(ctx context.Context, v []byte) error {
	return b.e.forceSet(ctx, slices.Clone(v))
}

// CompareAndSet writes v if the node holds exactly expected, with one
// write conditional on the version it read; it does not succeed when the
// node is missing, holds other bytes, or changed meanwhile. As in Curator
// it makes one try and counts none in Stats.
func (b *Bytes) CompareAndSet(ctx context.Context, expected, v []byte) (Result[[]byte], error) {
	return b.e.compareAndSet(ctx, func(current []byte) (bool, error) {
		return bytes.Equal(current, expected), nil
	}, slices.Clone(v))
}

// TrySet writes v over whatever the node holds, or creates it with v,
// trying as the retry policy allows and then under the lock if one was
// given (WithPromotedToLock). Check Result.Succeeded. A write whose answer
// was lost is reported applied, or as ErrOutcomeUnknown.
func (b *Bytes) TrySet(ctx context.Context, v []byte) (Result[[]byte], error) {
	data := slices.Clone(v)
	return b.e.update(ctx, "try-set", func([]byte, bool) ([]byte, error) { return data, nil })
}

// Initialize creates the node with v if it does not exist, and reports
// whether this call created it. A create whose answer was lost is
// ErrOutcomeUnknown, not false: the node exists either way.
func (b *Bytes) Initialize(ctx context.Context, v []byte) (bool, error) {
	return b.e.initialize(ctx, slices.Clone(v))
}
