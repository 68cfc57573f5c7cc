package wire

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
)

// frame builds a request frame: length, xid, opcode, then a path.
func frame(op uint32, path string) []byte {
	b := make([]byte, 16+len(path))
	binary.BigEndian.PutUint32(b[0:], uint32(len(b)-4))
	binary.BigEndian.PutUint32(b[4:], 7)
	binary.BigEndian.PutUint32(b[8:], op)
	binary.BigEndian.PutUint32(b[12:], uint32(len(path)))
	copy(b[16:], path)
	return b
}

func TestCreatedPath(t *testing.T) {
	for _, op := range []uint32{wireCreate, wireCreate2, wireCreateContainer, wireCreateTTL} {
		path, ok := createdPath(frame(op, "/a/_c_x-lock-"))
		assert.True(t, ok, "op %d", op)
		assert.Equal(t, "/a/_c_x-lock-", string(path))
	}
	_, ok := createdPath(frame(4, "/a")) // getData
	assert.False(t, ok)
	_, ok = createdPath(frame(wireCreate, "/a")[:17]) // path cut short
	assert.False(t, ok)
	_, ok = createdPath([]byte{0, 0, 0, 1})
	assert.False(t, ok)
}

func TestWriteTap_ClosesOnTheCreateOfItsPathOnly(t *testing.T) {
	tap := NewWriteTap()
	e := tap.Expect("/a/_c_x-lock-")
	defer e.Stop()
	written := e.Written
	tap.wrote(frame(4, "/a/_c_x-lock-"))     // a read of the path
	tap.wrote(frame(wireCreate, "/a/_c_y-")) // another create
	select {
	case <-written:
		t.Fatal("closed by another request")
	default:
	}
	tap.wrote(frame(wireCreate, "/a/_c_x-lock-"))
	<-written
	tap.wrote(frame(wireCreate, "/a/_c_x-lock-")) // a second write: no double close
	assert.Zero(t, tap.waiting.Load())
}

func TestWriteTap_StopForgets(t *testing.T) {
	tap := NewWriteTap()
	tap.Expect("/a").Stop()
	assert.Zero(t, tap.waiting.Load())
	assert.Empty(t, tap.creates)
}

func TestWriteTap_AStaleStopLeavesANewerExpectation(t *testing.T) {
	tap := NewWriteTap()
	old := tap.Expect("/a")
	tap.wrote(frame(wireCreate, "/a"))
	newer := tap.Expect("/a")
	old.Stop()
	assert.Equal(t, int32(1), tap.waiting.Load(), "the newer expectation stays")
	tap.wrote(frame(wireCreate, "/a"))
	<-newer.Written
}
