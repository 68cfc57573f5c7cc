package sharedcount_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
)

// The bytes are Java's ByteBuffer.allocate(4).putInt(n).array().
func TestEncode_IsJavaBigEndianInt(t *testing.T) {
	tests := []struct {
		n    int32
		want []byte
	}{
		{0, []byte{0, 0, 0, 0}},
		{1, []byte{0, 0, 0, 1}},
		{258, []byte{0, 0, 1, 2}},
		{-1, []byte{0xff, 0xff, 0xff, 0xff}},
		{math.MaxInt32, []byte{0x7f, 0xff, 0xff, 0xff}},
		{math.MinInt32, []byte{0x80, 0, 0, 0}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, sharedcount.Encode(tt.n), "Encode(%d)", tt.n)
		got, err := sharedcount.Decode(tt.want)
		require.NoError(t, err)
		assert.Equal(t, tt.n, got, "Decode(%x)", tt.want)
	}
}

func TestDecode_RejectsOtherLengths(t *testing.T) {
	for _, data := range [][]byte{nil, {}, {1}, {0, 0, 1}, {0, 0, 0, 0, 1}, []byte("12345678")} {
		_, err := sharedcount.Decode(data)
		require.ErrorIs(t, err, sharedcount.ErrMalformedCount, "%x", data)
	}
}
