package mutex

import (
	"context"
	"fmt"
	"reflect"

	"github.com/petermattis/goid"
)

// ownerKey is the context key of ContextWithOwner.
type ownerKey struct{}

// ContextWithOwner returns a context whose acquires and releases act for
// owner instead of the calling goroutine, so that a hold can be taken in
// one goroutine and released in another. Two contexts with equal owners share
// holds and count as one owner, so owner must be a value that is equal
// only to itself where that matters: a pointer to a struct with at least
// one field, a string or number of your own, or a comparable struct.
//
// Acquire and Release reject, with ErrInvalidArgument and before any
// server call, an owner that cannot be compared (a slice, a map, a func,
// or a struct or interface holding one), and a pointer to a zero-size type
// (such as &struct{}{}): Go may give all such pointers one address, so two
// requests would share one hold without excluding each other.
func ContextWithOwner(ctx context.Context, owner any) context.Context {
	return context.WithValue(ctx, ownerKey{}, owner)
}

// goroutineOwner is the default owner: the calling goroutine.
type goroutineOwner int64

// OwnerOf returns the owner that an acquire or release with ctx acts for:
// the owner given to ContextWithOwner, checked as Acquire checks it, or
// else the calling goroutine (a value equal only to what OwnerOf returns
// on the same goroutine). It is for recipes built on Mutex that keep state
// per owner.
func OwnerOf(ctx context.Context) (any, error) { return ownerOf(ctx) }

// ownerOf returns the explicit owner in ctx, checked, or the calling
// goroutine. The goroutine's id is read from the runtime's goroutine
// structure (github.com/petermattis/goid, which CockroachDB and others
// rely on), in a few nanoseconds at any stack depth, where parsing
// runtime.Stack costs tens of microseconds and grows with the stack.
func ownerOf(ctx context.Context) (any, error) {
	owner := ctx.Value(ownerKey{})
	if owner == nil {
		return goroutineOwner(goid.Get()), nil
	}
	return owner, checkOwner(owner)
}

// checkOwner rejects owners that would panic as map keys or compare equal
// to owners of other callers.
func checkOwner(owner any) error {
	v := reflect.ValueOf(owner)
	switch {
	case !v.Comparable():
		return fmt.Errorf("%w: owner of type %T holds a value that cannot be compared", ErrInvalidArgument, owner)
	case v.Kind() == reflect.Pointer && v.Type().Elem().Size() == 0:
		return fmt.Errorf("%w: owner of type %T points to a zero-size value, which Go may place at one address for everyone", ErrInvalidArgument, owner)
	}
	return nil
}
