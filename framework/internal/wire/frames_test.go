package wire

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// packet builds a server packet: a 4-byte length, then body.
func packet(body []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	return append(b, body...)
}

// connectResponse builds a ConnectResponse body.
func connectResponse(timeoutMs int32, session int64) []byte {
	b := binary.BigEndian.AppendUint32(nil, 0) // protocol version
	b = binary.BigEndian.AppendUint32(b, uint32(timeoutMs))
	b = binary.BigEndian.AppendUint64(b, uint64(session))
	b = binary.BigEndian.AppendUint32(b, 16) // password length
	return append(b, bytes.Repeat([]byte{0xAB}, 16)...)
}

// reply builds a reply body: xid, zxid, error, then payload bytes.
func reply(xid int32, payload int) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(xid))
	b = binary.BigEndian.AppendUint64(b, 99)
	b = binary.BigEndian.AppendUint32(b, 0)
	return append(b, bytes.Repeat([]byte{1}, payload)...)
}

type seenHead struct {
	index int
	head  []byte
}

// scanInChunks feeds stream to a scanner in reads of at most n bytes.
func scanInChunks(stream []byte, n int) []seenHead {
	var seen []seenHead
	s := frameScanner{onHead: func(i int, h []byte) { seen = append(seen, seenHead{i, append([]byte(nil), h...)}) }}
	for len(stream) > 0 {
		k := min(n, len(stream))
		s.scan(stream[:k])
		stream = stream[k:]
	}
	return seen
}

func TestFrameScanner_SeesEveryHeadWhateverTheReadSizes(t *testing.T) {
	bodies := [][]byte{connectResponse(3000, 0x1234), reply(1, 0), {}, reply(-2, 0), reply(7, 300), {1, 2, 3}}
	var stream []byte
	want := make([]seenHead, len(bodies))
	for i, b := range bodies {
		stream = append(stream, packet(b)...)
		want[i] = seenHead{i, b[:min(len(b), frameHeadLen)]}
		if len(b) == 0 {
			want[i].head = []byte{}
		}
	}
	for _, n := range []int{1, 2, 3, 4, 5, 7, 16, 17, 20, 64, len(stream)} {
		got := scanInChunks(stream, n)
		for i := range got {
			if got[i].head == nil {
				got[i].head = []byte{}
			}
		}
		assert.Equal(t, want, got, "reads of %d bytes", n)
	}
}

func TestFrameScanner_StopsAtALengthThatCannotBeAPacket(t *testing.T) {
	stream := append(packet(reply(1, 0)), 0xFF, 0xFF, 0xFF, 0xFF)
	stream = append(stream, packet(reply(2, 0))...)
	got := scanInChunks(stream, 3)
	assert.Len(t, got, 1)
}

func TestParseConnectReply(t *testing.T) {
	for _, tc := range []struct {
		name string
		head []byte
		want ConnectReply
		ok   bool
	}{
		{"granted", connectResponse(3000, 0x1234)[:frameHeadLen], ConnectReply{3 * time.Second, 0x1234}, true},
		{"expired session", connectResponse(0, 0)[:frameHeadLen], ConnectReply{}, false},
		{"no timeout", connectResponse(0, 5)[:frameHeadLen], ConnectReply{0, 5}, false},
		{"short", connectResponse(3000, 1)[:12], ConnectReply{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parseConnectReply(tc.head)
			assert.Equal(t, tc.ok, ok)
			if ok {
				assert.Equal(t, tc.want, got)
			}
		})
	}
}

// What following the packets adds to each read: a burst of 100-byte
// replies read in 64 KiB reads.
func BenchmarkFrameScanner(b *testing.B) {
	var stream []byte
	for len(stream) < 64<<10 {
		stream = append(stream, packet(reply(1, 84))...)
	}
	s := frameScanner{onHead: func(int, []byte) {}}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		s.scan(stream)
	}
}
