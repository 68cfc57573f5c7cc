package atomicvalue

import (
	"encoding/binary"
	"fmt"
)

// integer is the type of a Number's value: Curator's Integer or Long.
type integer interface{ int32 | int64 }

// sizeOf returns the bytes of T's node format: 4 for int32 (Java's
// ByteBuffer.putInt), 8 for int64 (putLong).
func sizeOf[T integer]() int {
	var zero T
	if _, ok := any(zero).(int32); ok {
		return 4
	}
	return 8
}

// encode returns v as its node holds it: big-endian, 4 or 8 bytes.
func encode[T integer](v T) []byte {
	if sizeOf[T]() == 4 {
		return binary.BigEndian.AppendUint32(make([]byte, 0, 4), uint32(v))
	}
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(v))
}

// decode reads a node's data: empty data (a node created without any,
// which Curator reads as 0) is 0, data of T's size is its big-endian
// value, and anything else is ErrMalformedValue, where Curator would read
// the first bytes of longer data as the value.
func decode[T integer](data []byte) (T, error) {
	size := sizeOf[T]()
	switch len(data) {
	case 0:
		return 0, nil
	case size:
		if size == 4 {
			return T(int32(binary.BigEndian.Uint32(data))), nil
		}
		return T(int64(binary.BigEndian.Uint64(data))), nil
	}
	return 0, fmt.Errorf("%w: %d bytes, want %d", ErrMalformedValue, len(data), size)
}

// add returns a+b, or ErrOverflow when it does not fit T.
func add[T integer](a, b T) (T, error) {
	sum := a + b
	if (b > 0 && sum < a) || (b < 0 && sum > a) {
		return 0, fmt.Errorf("%w: %d + %d", ErrOverflow, a, b)
	}
	return sum, nil
}
