package mutex

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stackGoroutineID parses the goroutine id from the head of the stack
// trace, the slow way the runtime documents, to check the fast one.
func stackGoroutineID(t testing.TB) goroutineOwner {
	var buf [64]byte
	b := bytes.TrimPrefix(buf[:runtime.Stack(buf[:], false)], []byte("goroutine "))
	id, err := strconv.ParseInt(string(b[:bytes.IndexByte(b, ' ')]), 10, 64)
	require.NoError(t, err)
	return goroutineOwner(id)
}

// The fast id reads the runtime's goroutine structure: if a Go release
// moved the field, this test fails instead of two goroutines sharing holds.
func TestOwnerOf_IsTheCallingGoroutine(t *testing.T) {
	mine, err := ownerOf(context.Background())
	require.NoError(t, err)
	assert.Equal(t, stackGoroutineID(t), mine)
	ids := make(chan [2]any, 20)
	for range cap(ids) {
		go func() {
			id, _ := ownerOf(context.Background())
			ids <- [2]any{id, stackGoroutineID(t)}
		}()
	}
	seen := map[any]bool{mine: true}
	for range cap(ids) {
		got := <-ids
		assert.Equal(t, got[1], got[0])
		assert.False(t, seen[got[0]], "two goroutines with one id")
		seen[got[0]] = true
	}
}

type request struct{}

type sized struct{ n int }

type wrapper struct{ v any }

func TestOwnerOf_RejectsOwnersThatCannotExclude(t *testing.T) {
	bad := map[string]any{
		"pointer to a zero-size type":     &request{},
		"slice":                           []int{1},
		"map":                             map[int]int{},
		"comparable type holding a slice": wrapper{v: []int{1}},
		"func":                            func() {},
	}
	for name, owner := range bad {
		_, err := ownerOf(ContextWithOwner(context.Background(), owner))
		assert.ErrorIs(t, err, ErrInvalidArgument, name)
	}
	good := []any{&sized{n: 1}, "job-7", 42, wrapper{v: "x"}, struct{}{}}
	for _, owner := range good {
		got, err := ownerOf(ContextWithOwner(context.Background(), owner))
		assert.NoError(t, err, "%#v", owner)
		assert.Equal(t, owner, got)
	}
}

// BenchmarkOwnerOf measures the default owner at several stack depths: it
// must cost well under a microsecond at any depth (DESIGN section 6).
func BenchmarkOwnerOf(b *testing.B) {
	for _, depth := range []int{5, 50, 500} {
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			atDepth(depth, func() {
				ctx := context.Background()
				for b.Loop() {
					_, _ = ownerOf(ctx)
				}
			})
		})
	}
}

// atDepth calls fn with about depth frames below it.
func atDepth(depth int, fn func()) {
	if depth <= 0 {
		fn()
		return
	}
	atDepth(depth-1, fn)
}
