package sharedcount_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
)

// Decode accepts exactly the 4-byte big-endian encoding Encode writes, and
// refuses anything else with ErrMalformedCount, without panicking.
func FuzzDecode(f *testing.F) {
	for _, seed := range [][]byte{nil, {}, {0, 0, 0, 1}, {0xff, 0xff, 0xff, 0xff}, {0x80, 0, 0, 0}, {1, 2, 3}, {1, 2, 3, 4, 5}, []byte("10")} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := sharedcount.Decode(data)
		if len(data) != 4 {
			require.ErrorIs(t, err, sharedcount.ErrMalformedCount)
			require.Zero(t, n)
			return
		}
		require.NoError(t, err)
		require.True(t, bytes.Equal(data, sharedcount.Encode(n)), "Encode(Decode(%x)) = %x", data, sharedcount.Encode(n))
	})
}

// Encode's output decodes to the same count.
func FuzzEncode(f *testing.F) {
	for _, n := range []int32{0, 1, -1, 258, 1<<31 - 1, -1 << 31} {
		f.Add(n)
	}
	f.Fuzz(func(t *testing.T, n int32) {
		data := sharedcount.Encode(n)
		require.Len(t, data, 4)
		got, err := sharedcount.Decode(data)
		require.NoError(t, err)
		require.Equal(t, n, got)
	})
}
