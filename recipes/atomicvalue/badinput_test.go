package atomicvalue_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/atomicvalue"
)

func TestNew_RejectsBadInputWithoutARequest(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	before := requests()
	lock := func(p atomicvalue.PromotedToLock) atomicvalue.Option { return atomicvalue.WithPromotedToLock(p) }
	tests := []struct {
		name string
		new  func() (any, error)
	}{
		{"nil client", func() (any, error) { return atomicvalue.NewLong(nil, "/n") }},
		{"empty path", func() (any, error) { return atomicvalue.NewLong(c, "") }},
		{"relative path", func() (any, error) { return atomicvalue.NewInt(c, "n") }},
		{"trailing slash", func() (any, error) { return atomicvalue.NewBytes(c, "/n/") }},
		{"empty element", func() (any, error) { return atomicvalue.NewLong(c, "/a//n") }},
		{"dot element", func() (any, error) { return atomicvalue.NewLong(c, "/a/./n") }},
		{"root", func() (any, error) { return atomicvalue.NewLong(c, "/") }},
		{"too long", func() (any, error) { return atomicvalue.NewLong(c, "/"+strings.Repeat("n", framework.MaxRequestSize)) }},
		{"nil option", func() (any, error) { return atomicvalue.NewLong(c, "/n", nil) }},
		{"nil retry policy", func() (any, error) { return atomicvalue.NewLong(c, "/n", atomicvalue.WithRetryPolicy(nil)) }},
		{"nil logger", func() (any, error) { return atomicvalue.NewLong(c, "/n", atomicvalue.WithLogger(nil)) }},
		{"no lock path", func() (any, error) { return atomicvalue.NewLong(c, "/n", lock(atomicvalue.PromotedToLock{})) }},
		{"odd lock path", func() (any, error) {
			return atomicvalue.NewLong(c, "/n", lock(atomicvalue.PromotedToLock{Path: "/l/"}))
		}},
		{"negative lock timeout", func() (any, error) {
			return atomicvalue.NewLong(c, "/n", lock(atomicvalue.PromotedToLock{Path: "/l", Timeout: -time.Second}))
		}},
		{"zero chunk", func() (any, error) { return atomicvalue.NewCachedLong(c, "/n", 0) }},
		{"negative chunk", func() (any, error) { return atomicvalue.NewCachedLong(c, "/n", -5) }},
		{"cached, bad path", func() (any, error) { return atomicvalue.NewCachedLong(c, "n", 5) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.new()
			require.ErrorIs(t, err, atomicvalue.ErrInvalidArgument)
		})
	}
	assert.Equal(t, before, requests(), "nothing reached the server")
}

// Subtracting the smallest number, which has no opposite, is refused
// before any request.
func TestLong_SubtractOfTheSmallestNumberIsRefusedWithoutARequest(t *testing.T) {
	servers, requests := zktest.Counted(t)
	ctx := testContext(t)
	l := newLong(t, connect(t, servers), zktest.UniquePath(t))
	n := newInt(t, connect(t, servers), zktest.UniquePath(t))
	before := requests()

	_, err := l.Subtract(ctx, math.MinInt64)
	require.ErrorIs(t, err, atomicvalue.ErrInvalidArgument)
	_, err = n.Subtract(ctx, math.MinInt32)
	require.ErrorIs(t, err, atomicvalue.ErrInvalidArgument)
	assert.Equal(t, before, requests())
}

// A node that does not hold the number's format fails every operation
// that reads it, and nothing is written over it.
func TestLong_NodeNotInItsFormatIsAnErrorAndNothingIsWritten(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	for _, data := range [][]byte{{1, 2, 3}, []byte("12345678x"), {0, 0, 0, 7}} {
		path := zktest.UniquePath(t)
		_, err := c.Create(ctx, path, data, framework.Persistent, framework.WithParents())
		require.NoError(t, err)
		l := newLong(t, c, path)
		_, err = l.Get(ctx)
		require.ErrorIs(t, err, atomicvalue.ErrMalformedValue, "get %x", data)
		_, err = l.Increment(ctx)
		require.ErrorIs(t, err, atomicvalue.ErrMalformedValue, "increment %x", data)
		_, err = l.TrySet(ctx, 5)
		require.ErrorIs(t, err, atomicvalue.ErrMalformedValue, "try-set %x", data)
		_, err = l.CompareAndSet(ctx, 0, 5)
		require.ErrorIs(t, err, atomicvalue.ErrMalformedValue, "compare-and-set %x", data)
		got, version := nodeData(t, c, path)
		assert.Equal(t, data, got)
		assert.Zero(t, version, "nothing written over %x", data)
	}
}

// A Long's node is no Int: its 8 bytes do not fit.
func TestInt_LongsNodeDoesNotFit(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, newLong(t, c, path).ForceSet(ctx, 1))

	_, err := newInt(t, c, path).Increment(ctx)
	require.ErrorIs(t, err, atomicvalue.ErrMalformedValue)
	_, version := nodeData(t, c, path)
	assert.Zero(t, version)
}

func TestLong_OverflowIsAnErrorAndNothingIsWritten(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	l := newLong(t, c, zktest.UniquePath(t))
	require.NoError(t, l.ForceSet(ctx, math.MaxInt64-1))

	_, err := l.Add(ctx, 2)
	require.ErrorIs(t, err, atomicvalue.ErrOverflow)
	r, err := l.Increment(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(math.MaxInt64), r.PostValue, "up to the largest")
	_, err = l.Increment(ctx)
	require.ErrorIs(t, err, atomicvalue.ErrOverflow)
	require.NoError(t, l.ForceSet(ctx, math.MinInt64))
	_, err = l.Decrement(ctx)
	require.ErrorIs(t, err, atomicvalue.ErrOverflow)
	got, _ := nodeData(t, c, l.Path())
	assert.Equal(t, []byte{0x80, 0, 0, 0, 0, 0, 0, 0}, got)
}
