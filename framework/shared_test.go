package framework_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

type sharedKey struct{ path string }

// The recipes of one client share what they keep under one key, until it
// is forgotten; a forget of a value no longer kept does nothing.
func TestHooksShared_OneValuePerKeyUntilForgotten(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	made := 0
	newValue := func() any { made++; return &struct{ n int }{made} }
	h := c.Hooks()
	first := h.Shared(sharedKey{"/a"}, newValue)
	require.Same(t, first, h.Shared(sharedKey{"/a"}, newValue))
	other := h.Shared(sharedKey{"/b"}, newValue)
	assert.NotSame(t, first, other)
	assert.Equal(t, 2, made)

	h.Forget(sharedKey{"/a"}, other) // not the value kept under /a
	require.Same(t, first, h.Shared(sharedKey{"/a"}, newValue))
	h.Forget(sharedKey{"/a"}, first)
	again := h.Shared(sharedKey{"/a"}, newValue)
	assert.NotSame(t, first, again)
	assert.Same(t, other, h.Shared(sharedKey{"/b"}, newValue))
	assert.NotSame(t, again, connect(t, zktest.Servers(t)).Hooks().Shared(sharedKey{"/a"}, newValue),
		"another client keeps its own")
}

// LoadShared finds what Shared keeps, and makes nothing for a key with no
// value.
func TestHooksLoadShared_FindsWhatIsKeptAndMakesNothing(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	h := c.Hooks()
	_, ok := h.LoadShared(sharedKey{"/a"})
	require.False(t, ok)
	_, ok = h.LoadShared(sharedKey{"/a"})
	assert.False(t, ok, "the first look made nothing")

	kept := h.Shared(sharedKey{"/a"}, func() any { return &struct{ n int }{1} })
	v, ok := h.LoadShared(sharedKey{"/a"})
	require.True(t, ok)
	assert.Same(t, kept, v)
	h.Forget(sharedKey{"/a"}, kept)
	_, ok = h.LoadShared(sharedKey{"/a"})
	assert.False(t, ok, "forgotten")
}
