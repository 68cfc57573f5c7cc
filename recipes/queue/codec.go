package queue

// Codec turns the items of a queue into bytes and back: Curator's
// QueueSerializer. The bytes of each item go into the node in Curator's
// format (see Encode), so a Java consumer reads a Go producer's items with
// a QueueSerializer that reads what the Go codec writes, and back. A Codec
// must be safe for concurrent use.
type Codec[T any] interface {
	// Encode returns the bytes of item.
	Encode(item T) ([]byte, error)
	// Decode returns the item of b. An error makes the node that holds
	// it malformed: consumers leave it in place (see ErrMalformed).
	Decode(b []byte) (T, error)
}

// BytesCodec is the Codec of items that are bytes already: each item as
// it is.
type BytesCodec struct{}

// Encode returns b.
func (BytesCodec) Encode(b []byte) ([]byte, error) { return b, nil }

// Decode returns b.
func (BytesCodec) Decode(b []byte) ([]byte, error) { return b, nil }

// StringCodec is the Codec of text items: a Go string's bytes as they are
// (UTF-8), the bytes Java's s.getBytes(UTF_8) writes and
// new String(b, UTF_8) reads.
type StringCodec struct{}

// Encode returns the bytes of s.
func (StringCodec) Encode(s string) ([]byte, error) { return []byte(s), nil }

// Decode returns b as a string.
func (StringCodec) Decode(b []byte) (string, error) { return string(b), nil }
