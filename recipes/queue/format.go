package queue

import (
	"encoding/binary"
	"fmt"
)

// The node format of Curator's DistributedQueue (its ItemSerializer): a
// 4-byte version, then per item an item marker, a 4-byte length and the
// item's bytes, then an end marker. Integers are big-endian, as Java's
// DataOutputStream writes them.
const (
	formatVersion = 0x00010001
	itemMarker    = 0x01
	endMarker     = 0x02
	// itemOverhead is what the format adds to each item: marker and length.
	itemOverhead = 1 + 4
	// nodeOverhead is what it adds to a node: version and end marker.
	nodeOverhead = 4 + 1
)

// Encode returns the data of a queue node that holds items, in the format
// Curator's DistributedQueue writes (and its consumers read): the version
// 0x00010001, then for each item the byte 0x01, its length and its bytes,
// then the byte 0x02. A node may hold no item; Curator's consumers take
// it and call nothing.
func Encode(items [][]byte) []byte {
	n := nodeOverhead
	for _, it := range items {
		n += itemOverhead + len(it)
	}
	b := make([]byte, 0, n)
	b = binary.BigEndian.AppendUint32(b, formatVersion)
	for _, it := range items {
		b = append(b, itemMarker)
		b = binary.BigEndian.AppendUint32(b, uint32(len(it)))
		b = append(b, it...)
	}
	return append(b, endMarker)
}

// Decode reads the items of a queue node's data written by Encode or by
// Curator. Data in any other shape (another version, a marker that is
// neither 0x01 nor 0x02, a length that is negative or runs past the end,
// no end marker) is ErrMalformed; bytes after the end marker are ignored,
// as Curator ignores them. The items share data's memory.
func Decode(data []byte) ([][]byte, error) {
	if len(data) < 4 {
		return nil, fmt.Errorf("%w: %d bytes, too short for the version", ErrMalformed, len(data))
	}
	if v := binary.BigEndian.Uint32(data); v != formatVersion {
		return nil, fmt.Errorf("%w: version %#08x, want %#08x", ErrMalformed, v, formatVersion)
	}
	var items [][]byte
	for at := 4; ; {
		if at >= len(data) {
			return nil, fmt.Errorf("%w: no end marker", ErrMalformed)
		}
		switch data[at] {
		case endMarker:
			return items, nil
		case itemMarker:
		default:
			return nil, fmt.Errorf("%w: marker %#02x at byte %d", ErrMalformed, data[at], at)
		}
		if len(data)-at-1 < 4 {
			return nil, fmt.Errorf("%w: item length cut short at byte %d", ErrMalformed, at+1)
		}
		size := int32(binary.BigEndian.Uint32(data[at+1:]))
		at += itemOverhead
		if size < 0 || int(size) > len(data)-at {
			return nil, fmt.Errorf("%w: item of %d bytes at byte %d, %d left", ErrMalformed, size, at, len(data)-at)
		}
		items = append(items, data[at:at+int(size):at+int(size)])
		at += int(size)
	}
}
