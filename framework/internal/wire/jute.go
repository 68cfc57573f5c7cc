package wire

import (
	"encoding/binary"
	"errors"

	"github.com/go-zookeeper/zk"
)

// ErrJute is the error of a record that does not follow ZooKeeper's
// encoding (jute): too short, or a length that runs past its end.
var ErrJute = errors.New("framework: malformed reply from the server")

// JuteWriter encodes ZooKeeper's records: big-endian integers, a boolean
// as one byte, strings and buffers with an int32 length before them.
type JuteWriter struct{ B []byte }

// Int32 appends a big-endian int32.
func (w *JuteWriter) Int32(v int32) { w.B = binary.BigEndian.AppendUint32(w.B, uint32(v)) }

// Int64 appends a big-endian int64.
func (w *JuteWriter) Int64(v int64) { w.B = binary.BigEndian.AppendUint64(w.B, uint64(v)) }

// Bool appends a boolean as one byte.
func (w *JuteWriter) Bool(v bool) {
	if v {
		w.B = append(w.B, 1)
		return
	}
	w.B = append(w.B, 0)
}

// String appends s after its int32 length.
func (w *JuteWriter) String(s string) {
	w.Int32(int32(len(s)))
	w.B = append(w.B, s...)
}

// Strings appends a vector of strings after its int32 length.
func (w *JuteWriter) Strings(list []string) {
	w.Int32(int32(len(list)))
	for _, s := range list {
		w.String(s)
	}
}

// JuteReader decodes what JuteWriter encodes. The first malformed field
// sets err; every later read returns a zero value.
type JuteReader struct {
	B   []byte
	Err error
}

func (r *JuteReader) take(n int) []byte {
	if r.Err != nil || n < 0 || n > len(r.B) {
		r.Err = ErrJute
		return nil
	}
	p := r.B[:n:n]
	r.B = r.B[n:]
	return p
}

// Int32 reads a big-endian int32.
func (r *JuteReader) Int32() int32 {
	if p := r.take(4); p != nil {
		return int32(binary.BigEndian.Uint32(p))
	}
	return 0
}

func (r *JuteReader) int64() int64 {
	if p := r.take(8); p != nil {
		return int64(binary.BigEndian.Uint64(p))
	}
	return 0
}

// Bool reads a boolean of one byte.
func (r *JuteReader) Bool() bool {
	p := r.take(1)
	return p != nil && p[0] != 0
}

// Buffer reads a length-prefixed buffer; -1 is a null buffer.
func (r *JuteReader) Buffer() []byte {
	n := r.Int32()
	if n == -1 {
		return nil
	}
	return r.take(int(n))
}

// Str reads a length-prefixed string (not String: a reader is no
// fmt.Stringer).
func (r *JuteReader) Str() string { return string(r.Buffer()) }

// Strings reads a vector of strings; -1 is a null vector.
func (r *JuteReader) Strings() []string {
	n := r.Int32()
	if n == -1 {
		return nil
	}
	if n < 0 || int(n) > len(r.B)/4 { // every string takes at least its length
		r.Err = ErrJute
		return nil
	}
	list := make([]string, 0, n)
	for range n {
		list = append(list, r.Str())
	}
	return list
}

// Stat reads a Stat record.
func (r *JuteReader) Stat() *zk.Stat {
	s := &zk.Stat{
		Czxid: r.int64(), Mzxid: r.int64(), Ctime: r.int64(), Mtime: r.int64(),
		Version: r.Int32(), Cversion: r.Int32(), Aversion: r.Int32(),
		EphemeralOwner: r.int64(), DataLength: r.Int32(), NumChildren: r.Int32(), Pzxid: r.int64(),
	}
	return s
}

// StatLen is the size of an encoded Stat.
const StatLen = 8*4 + 4*3 + 8 + 4*2 + 8
