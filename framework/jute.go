package framework

import (
	"encoding/binary"
	"errors"

	"github.com/go-zookeeper/zk"
)

// errJute is the error of a record that does not follow ZooKeeper's
// encoding (jute): too short, or a length that runs past its end.
var errJute = errors.New("framework: malformed reply from the server")

// juteWriter encodes ZooKeeper's records: big-endian integers, a boolean
// as one byte, strings and buffers with an int32 length before them.
type juteWriter struct{ b []byte }

func (w *juteWriter) int32(v int32) { w.b = binary.BigEndian.AppendUint32(w.b, uint32(v)) }
func (w *juteWriter) int64(v int64) { w.b = binary.BigEndian.AppendUint64(w.b, uint64(v)) }

func (w *juteWriter) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
		return
	}
	w.b = append(w.b, 0)
}

func (w *juteWriter) string(s string) {
	w.int32(int32(len(s)))
	w.b = append(w.b, s...)
}

func (w *juteWriter) strings(list []string) {
	w.int32(int32(len(list)))
	for _, s := range list {
		w.string(s)
	}
}

// juteReader decodes what juteWriter encodes. The first malformed field
// sets err; every later read returns a zero value.
type juteReader struct {
	b   []byte
	err error
}

func (r *juteReader) take(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.err = errJute
		return nil
	}
	p := r.b[:n:n]
	r.b = r.b[n:]
	return p
}

func (r *juteReader) int32() int32 {
	if p := r.take(4); p != nil {
		return int32(binary.BigEndian.Uint32(p))
	}
	return 0
}

func (r *juteReader) int64() int64 {
	if p := r.take(8); p != nil {
		return int64(binary.BigEndian.Uint64(p))
	}
	return 0
}

func (r *juteReader) bool() bool {
	p := r.take(1)
	return p != nil && p[0] != 0
}

// buffer reads a length-prefixed buffer; -1 is a null buffer.
func (r *juteReader) buffer() []byte {
	n := r.int32()
	if n == -1 {
		return nil
	}
	return r.take(int(n))
}

func (r *juteReader) string() string { return string(r.buffer()) }

func (r *juteReader) strings() []string {
	n := r.int32()
	if n == -1 {
		return nil
	}
	if n < 0 || int(n) > len(r.b)/4 { // every string takes at least its length
		r.err = errJute
		return nil
	}
	list := make([]string, 0, n)
	for range n {
		list = append(list, r.string())
	}
	return list
}

// stat reads a Stat record.
func (r *juteReader) stat() *zk.Stat {
	s := &zk.Stat{
		Czxid: r.int64(), Mzxid: r.int64(), Ctime: r.int64(), Mtime: r.int64(),
		Version: r.int32(), Cversion: r.int32(), Aversion: r.int32(),
		EphemeralOwner: r.int64(), DataLength: r.int32(), NumChildren: r.int32(), Pzxid: r.int64(),
	}
	return s
}

// statLen is the size of an encoded Stat.
const statLen = 8*4 + 4*3 + 8 + 4*2 + 8
