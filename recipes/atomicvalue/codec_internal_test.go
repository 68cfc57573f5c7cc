package atomicvalue

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The bytes are Java's ByteBuffer.allocate(8).putLong(n).array() and
// ByteBuffer.allocate(4).putInt(n).array(), which Curator writes.
func TestEncode_IsJavasBigEndianLongAndInt(t *testing.T) {
	assert.Equal(t, []byte{0, 0, 0, 0, 0, 0, 0, 1}, encode[int64](1))
	assert.Equal(t, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}, encode[int64](-2))
	assert.Equal(t, []byte{0, 0, 0, 1, 0, 0, 0, 2}, encode[int64](1<<32+2))
	assert.Equal(t, []byte{0x80, 0, 0, 0, 0, 0, 0, 0}, encode[int64](math.MinInt64))
	assert.Equal(t, []byte{0, 0, 1, 2}, encode[int32](258))
	assert.Equal(t, []byte{0xff, 0xff, 0xff, 0xff}, encode[int32](-1))
	assert.Equal(t, []byte{0x7f, 0xff, 0xff, 0xff}, encode[int32](math.MaxInt32))
}

// Empty data is 0, as Curator reads it; data of any length but the type's
// is malformed, also where Curator would read its first bytes.
func TestDecode_AcceptsTheTypesSizeOrNothing(t *testing.T) {
	for _, data := range [][]byte{nil, {}} {
		l, err := decode[int64](data)
		require.NoError(t, err)
		assert.Zero(t, l)
		i, err := decode[int32](data)
		require.NoError(t, err)
		assert.Zero(t, i)
	}
	l, err := decode[int64]([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe})
	require.NoError(t, err)
	assert.Equal(t, int64(-2), l)
	for _, data := range [][]byte{{1}, {0, 0, 0, 1}, {0, 0, 0, 0, 0, 0, 0, 0, 1}} {
		_, err := decode[int64](data)
		assert.ErrorIs(t, err, ErrMalformedValue, "%x as a long", data)
	}
	for _, data := range [][]byte{{1, 2, 3}, {0, 0, 0, 0, 0, 0, 0, 1}, {0, 0, 0, 1, 0}} {
		_, err := decode[int32](data)
		assert.ErrorIs(t, err, ErrMalformedValue, "%x as an int", data)
	}
}

func TestAdd_RefusesWhatDoesNotFit(t *testing.T) {
	tests := []struct {
		a, b int64
		ok   bool
	}{
		{1, 2, true},
		{math.MaxInt64, 0, true},
		{math.MaxInt64, 1, false},
		{math.MinInt64, -1, false},
		{math.MinInt64, math.MaxInt64, true},
		{-1, math.MinInt64, false},
		{math.MaxInt64, math.MinInt64, true},
	}
	for _, tt := range tests {
		sum, err := add(tt.a, tt.b)
		if tt.ok {
			assert.NoError(t, err, "%d + %d", tt.a, tt.b)
			assert.Equal(t, tt.a+tt.b, sum)
		} else {
			assert.ErrorIs(t, err, ErrOverflow, "%d + %d", tt.a, tt.b)
		}
	}
	_, err := add[int32](math.MaxInt32, 1)
	assert.ErrorIs(t, err, ErrOverflow)
	_, err = add[int32](math.MinInt32, -1)
	assert.ErrorIs(t, err, ErrOverflow)
}

// Whatever the bytes, decode answers without panicking, and what it
// accepts encodes back to the same bytes.
func FuzzDecode(f *testing.F) {
	for _, seed := range [][]byte{nil, {0, 0, 0, 1}, {0xff, 0, 0, 0, 0, 0, 0, 1}, {1, 2, 3}} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if l, err := decode[int64](data); err == nil && len(data) > 0 {
			require.Equal(t, data, encode(l))
		}
		if i, err := decode[int32](data); err == nil && len(data) > 0 {
			require.Equal(t, data, encode(i))
		}
	})
}
