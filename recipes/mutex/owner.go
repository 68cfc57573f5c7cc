package mutex

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
)

// ownerKey is the context key of WithOwner.
type ownerKey struct{}

// WithOwner returns a context whose acquires and releases act for owner
// instead of the calling goroutine, so that a hold can be taken in one
// goroutine and released in another. owner must be comparable; two
// contexts with equal owners share holds, and count as one owner.
func WithOwner(ctx context.Context, owner any) context.Context {
	return context.WithValue(ctx, ownerKey{}, owner)
}

// goroutineOwner is the default owner: the calling goroutine.
type goroutineOwner uint64

// ownerOf returns the explicit owner in ctx, or the calling goroutine.
func ownerOf(ctx context.Context) any {
	if owner := ctx.Value(ownerKey{}); owner != nil {
		return owner
	}
	return goroutineOwner(goroutineID())
}

// goroutineID reads the calling goroutine's id from the head of its stack
// trace ("goroutine 42 [running]:"). Go does not expose it otherwise; it
// stands in for Curator's owning Thread.
func goroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		panic("mutex: cannot read the goroutine id: " + err.Error())
	}
	return id
}
