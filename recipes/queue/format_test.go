package queue_test

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

// The bytes of Curator's ItemSerializer for the items "ab" and "": the
// version 0x00010001, 0x01 + length + bytes per item, 0x02.
const curatorTwoItems = "00010001" + "01" + "00000002" + "6162" + "01" + "00000000" + "02"

func TestEncode_WritesCuratorsItemFormat(t *testing.T) {
	assert.Equal(t, curatorTwoItems, hex.EncodeToString(queue.Encode([][]byte{[]byte("ab"), {}})))
	assert.Equal(t, "0001000102", hex.EncodeToString(queue.Encode(nil)), "a node with no item")
}

func TestDecode_ReadsCuratorsItemFormatAndRejectsAnyOther(t *testing.T) {
	b, _ := hex.DecodeString(curatorTwoItems)
	got, err := queue.Decode(b)
	require.NoError(t, err)
	assert.Equal(t, [][]byte{[]byte("ab"), {}}, got)
	got, err = queue.Decode(append(b, 0xff, 0x00))
	require.NoError(t, err, "bytes after the end marker are ignored, as Curator ignores them")
	assert.Len(t, got, 2)

	for name, h := range map[string]string{
		"empty":                 "",
		"short version":         "000100",
		"other version":         "0001000202",
		"no end marker":         "00010001",
		"unknown marker":        "0001000103",
		"cut length":            "000100010100",
		"negative length":       "0001000101ffffffff02",
		"length past the end":   "00010001010000000561",
		"item then no end":      "00010001010000000161",
		"raw bytes of a simple": hex.EncodeToString([]byte("hello")),
	} {
		b, _ := hex.DecodeString(h)
		_, err := queue.Decode(b)
		assert.ErrorIs(t, err, queue.ErrMalformed, name)
	}
}

func FuzzDecode_NeverPanicsAndRoundTrips(f *testing.F) {
	b, _ := hex.DecodeString(curatorTwoItems)
	f.Add(b)
	f.Add([]byte{0, 1, 0, 1, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		items, err := queue.Decode(data)
		if err != nil {
			return
		}
		again, err := queue.Decode(queue.Encode(items))
		if err != nil || len(again) != len(items) {
			t.Fatalf("re-encoded %d items read back as %d (%v)", len(items), len(again), err)
		}
		for i := range items {
			if !bytes.Equal(items[i], again[i]) {
				t.Fatalf("item %d changed", i)
			}
		}
	})
}
