package zktest

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// encoder writes jute-encoded values for test packets.
type encoder struct{ bytes.Buffer }

func (e *encoder) int32(v int32) *encoder {
	_ = binary.Write(&e.Buffer, binary.BigEndian, v)
	return e
}

func (e *encoder) str(s string) *encoder {
	e.int32(int32(len(s)))
	e.WriteString(s)
	return e
}

func (e *encoder) multiHeader(op int32, done bool) *encoder {
	e.int32(op)
	if done {
		e.WriteByte(1)
	} else {
		e.WriteByte(0)
	}
	return e.int32(-1)
}

// frame prefixes the body with its length.
func (e *encoder) frame() []byte {
	var out bytes.Buffer
	_ = binary.Write(&out, binary.BigEndian, int32(e.Len()))
	out.Write(e.Bytes())
	return out.Bytes()
}

func request(xid, op int32) *encoder {
	e := &encoder{}
	return e.int32(xid).int32(op)
}

func TestReadFrame_ReturnsWholePacketWithLength(t *testing.T) {
	pkt := request(7, opCreate).str("/a").frame()
	got, err := readFrame(bytes.NewReader(append(pkt, 0xff)))
	require.NoError(t, err)
	assert.Equal(t, pkt, got)
}

func TestReadFrame_RejectsNegativeLength(t *testing.T) {
	_, err := readFrame(bytes.NewReader([]byte{0xff, 0xff, 0xff, 0xff}))
	assert.Error(t, err)
}

func TestCreatesNode(t *testing.T) {
	multi := func() *encoder { return request(3, opMulti) }
	tests := []struct {
		name  string
		frame []byte
		want  bool
	}{
		{"create", request(1, opCreate).str("/a").frame(), true},
		{"create2", request(1, opCreate2).str("/a").frame(), true},
		{"createContainer", request(1, opCreateContainer).str("/a").frame(), true},
		{"createTTL", request(1, opCreateTTL).str("/a").frame(), true},
		{"getData", request(1, 4).str("/a").int32(0).frame(), false},
		{"delete", request(1, opDelete).str("/a").int32(-1).frame(), false},
		{"truncated header", (&encoder{}).int32(1).frame(), false},
		{"multi of a create", multi().multiHeader(opCreate, false).str("/a").multiHeader(-1, true).frame(), true},
		{"multi with create after check and delete", multi().
			multiHeader(opCheck, false).str("/a").int32(3).
			multiHeader(opDelete, false).str("/b").int32(-1).
			multiHeader(opSetData, false).str("/c").str("data").int32(-1).
			multiHeader(opCreateTTL, false).str("/d").frame(), true},
		{"multi without create", multi().
			multiHeader(opDelete, false).str("/b").int32(-1).
			multiHeader(-1, true).frame(), false},
		{"multi cut short", multi().multiHeader(opDelete, false).str("/b").frame(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, createsNode(tt.frame))
		})
	}
}

func TestReplyXid(t *testing.T) {
	xid, ok := replyXid((&encoder{}).int32(-2).int32(0).int32(5).int32(0).frame())
	require.True(t, ok)
	assert.Equal(t, int32(-2), xid)
	_, ok = replyXid([]byte{0, 0, 0, 1, 9})
	assert.False(t, ok)
}
