package atomicvalue

import (
	"context"
	"fmt"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Number is a number held in one node in Curator's format, 8 bytes
// big-endian for a Long (Curator's DistributedAtomicLong), 4 for an Int
// (DistributedAtomicInteger), so Go and Java processes update one number
// together. Its updates read the node and write it back conditionally on
// the version read; see the package doc for what they guarantee. It is
// safe for concurrent use.
type Number[T int32 | int64] struct {
	e *engine
}

// Long is a 64-bit number, Curator's DistributedAtomicLong.
type Long = Number[int64]

// Int is a 32-bit number, Curator's DistributedAtomicInteger.
type Int = Number[int32]

// NewLong returns the 64-bit number at path. It checks its arguments and
// options and does no I/O: the node is created by the first update that
// finds it missing.
func NewLong(client *framework.Client, path string, opts ...Option) (*Long, error) {
	return newNumber[int64](client, path, opts)
}

// NewInt returns the 32-bit number at path. It checks its arguments and
// options and does no I/O: the node is created by the first update that
// finds it missing.
func NewInt(client *framework.Client, path string, opts ...Option) (*Int, error) {
	return newNumber[int32](client, path, opts)
}

func newNumber[T int32 | int64](client *framework.Client, path string, opts []Option) (*Number[T], error) {
	e, err := newEngine(client, path, opts)
	if err != nil {
		return nil, err
	}
	return &Number[T]{e: e}, nil
}

// Path returns the path of the number's node.
func (n *Number[T]) Path() string { return n.e.path }

// Get reads the number: a Result that succeeded, with the value as both
// PreValue and PostValue; 0 if the node does not exist.
func (n *Number[T]) Get(ctx context.Context) (Result[T], error) {
	r, err := n.e.get(ctx)
	if err != nil {
		return Result[T]{}, err
	}
	if _, err := decode[T](r.PreValue); err != nil {
		return Result[T]{}, n.e.errorf("get", err)
	}
	return mapResult(r, n.value), nil
}

// ForceSet writes v whatever the node holds (malformed data too), creating
// the node if it is missing, with no guarantee of atomicity.
func (n *Number[T]) ForceSet(ctx context.Context, v T) error {
	return n.e.forceSet(ctx, encode(v))
}

// CompareAndSet writes v if the node holds expected, with one write
// conditional on the version it read; it does not succeed when the node is
// missing, holds another value, or changed meanwhile. As in Curator it
// makes one try and counts none in Stats.
func (n *Number[T]) CompareAndSet(ctx context.Context, expected, v T) (Result[T], error) {
	r, err := n.e.compareAndSet(ctx, func(current []byte) (bool, error) {
		got, err := decode[T](current)
		return got == expected, err
	}, encode(v))
	return mapResult(r, n.value), err
}

// TrySet writes v over whatever number the node holds, or creates it with
// v, trying as the retry policy allows and then under the lock if one was
// given (WithPromotedToLock).
func (n *Number[T]) TrySet(ctx context.Context, v T) (Result[T], error) {
	data := encode(v)
	return n.update(ctx, "try-set", func(current T) ([]byte, error) { return data, nil })
}

// Initialize creates the node with v if it does not exist, and reports
// whether this call created it. A create whose answer was lost is
// ErrOutcomeUnknown, not false: the node exists either way.
func (n *Number[T]) Initialize(ctx context.Context, v T) (bool, error) {
	return n.e.initialize(ctx, encode(v))
}

// Increment adds 1 (see Add).
func (n *Number[T]) Increment(ctx context.Context) (Result[T], error) {
	return n.add(ctx, "increment", 1)
}

// Decrement subtracts 1 (see Add).
func (n *Number[T]) Decrement(ctx context.Context) (Result[T], error) {
	return n.add(ctx, "decrement", -1)
}

// Add adds delta to the number, a missing node counting as 0: optimistic
// tries as the retry policy allows, then tries under the lock if one was
// given. Check Result.Succeeded: an update that another writer beat on
// every try wrote nothing. A result out of T's range is ErrOverflow, and a
// node that does not hold such a number ErrMalformedValue, with nothing
// written. An update whose write's answer was lost is never counted twice
// nor reported as not applied: it is applied, or ErrOutcomeUnknown.
func (n *Number[T]) Add(ctx context.Context, delta T) (Result[T], error) {
	return n.add(ctx, "add", delta)
}

// Subtract subtracts delta from the number (see Add); the smallest value
// of T, which has no opposite in T, is ErrInvalidArgument.
func (n *Number[T]) Subtract(ctx context.Context, delta T) (Result[T], error) {
	if delta != 0 && -delta == delta {
		return Result[T]{}, n.e.errorf("subtract", fmt.Errorf("%w: cannot subtract %d", ErrInvalidArgument, delta))
	}
	return n.add(ctx, "subtract", -delta)
}

func (n *Number[T]) add(ctx context.Context, op string, delta T) (Result[T], error) {
	return n.update(ctx, op, func(current T) ([]byte, error) {
		sum, err := add(current, delta)
		if err != nil {
			return nil, err
		}
		return encode(sum), nil
	})
}

// update runs an update whose new value next makes from the current one,
// which it decodes first: a malformed node ends it with nothing written.
func (n *Number[T]) update(ctx context.Context, op string, next func(current T) ([]byte, error)) (Result[T], error) {
	r, err := n.e.update(ctx, op, func(current []byte, _ bool) ([]byte, error) {
		v, err := decode[T](current)
		if err != nil {
			return nil, err
		}
		return next(v)
	})
	return mapResult(r, n.value), err
}

// value decodes data that an operation has decoded before without error.
func (n *Number[T]) value(data []byte) T {
	v, _ := decode[T](data)
	return v
}
