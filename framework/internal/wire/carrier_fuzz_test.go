package wire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"testing"
)

// streamConn is a net.Conn that reads a fixed stream and discards writes.
type streamConn struct {
	net.Conn
	r io.Reader
}

func (s *streamConn) Read(p []byte) (int, error)  { return s.r.Read(p) }
func (s *streamConn) Write(p []byte) (int, error) { return len(p), nil }

// replyPacket is a reply with header xid, zxid, code, then body.
func replyPacket(xid int32, code int32, body []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(xid))
	b = binary.BigEndian.AppendUint64(b, 7)
	b = binary.BigEndian.AppendUint32(b, uint32(code))
	return packet(append(b, body...))
}

// carriedXids are the xids the fuzzed connection has carried requests for.
var carriedXids = []int32{5, 6}

// FuzzTappedConn feeds the wrapper any stream after a connect response and
// reads it as go-zookeeper does. Whatever the bytes: no panic; every
// packet handed on is whole; a carried reply comes back as a getData
// reply under its own xid, other replies come back unchanged, and no
// notification reaches go-zookeeper; a stream it cannot follow ends with
// an error, never with a reply under a wrong xid.
func FuzzTappedConn(f *testing.F) {
	f.Add(replyPacket(5, 0, []byte("body")))
	f.Add(append(replyPacket(-1, 0, []byte{0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 2, '/', 'a'}), replyPacket(9, -101, nil)...))
	f.Add(append(replyPacket(6, -6, nil), replyPacket(5, 0, nil)...))
	f.Add([]byte{0, 0, 0, 3, 1, 2, 3})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, stream []byte) {
		connect := packet(make([]byte, 36))
		hooks := &Hooks{
			Tap: NewWriteTap(), Carrier: NewCarrier(NewServerCaps(nil, 0)),
			Connected: func(ConnectReply) {},
			Notify: func(body []byte) error {
				_, err := ParseNotification(body)
				return err
			},
			Zxid: func(int64) {},
		}
		c := &tappedConn{Conn: &streamConn{r: bytes.NewReader(append(connect, stream...))}, wire: hooks, carried: map[int32]*Carried{}}
		c.r = bufio.NewReaderSize(c.Conn, 64)
		c.frames.onHead = func(int, []byte) {}
		for _, xid := range carriedXids {
			c.carried[xid] = &Carried{}
		}
		want := expectedPackets(stream)
		for i := 0; ; i++ {
			var length [4]byte
			if _, err := io.ReadFull(c, length[:]); err != nil {
				return
			}
			n := int(int32(binary.BigEndian.Uint32(length[:])))
			if n < 0 || n > maxWholePacket {
				t.Fatalf("packet %d: a length of %d handed on", i, n)
			}
			body := make([]byte, n)
			if _, err := io.ReadFull(c, body); err != nil {
				return
			}
			if i == 0 {
				continue // the connect response
			}
			if len(want) == 0 {
				t.Fatalf("packet %d handed on beyond the stream's whole packets", i)
			}
			w := want[0]
			want = want[1:]
			if !bytes.Equal(body, w) {
				t.Fatalf("packet %d: got %x, want %x", i, body, w)
			}
		}
	})
}

// expectedPackets is what go-zookeeper should read of stream: its whole
// packets, without notifications, carried replies rewritten; it stops at
// the first packet the wrapper must refuse.
func expectedPackets(stream []byte) [][]byte {
	var out [][]byte
	carriedLeft := map[int32]bool{}
	for _, x := range carriedXids {
		carriedLeft[x] = true
	}
	for len(stream) >= 4 {
		n := int(int32(binary.BigEndian.Uint32(stream)))
		if n < 16 || n > maxWholePacket || n > len(stream)-4 {
			break
		}
		p := stream[:4+n]
		stream = stream[4+n:]
		xid := int32(binary.BigEndian.Uint32(p[4:8]))
		switch {
		case xid == notificationXid:
			if _, err := ParseNotification(p[20:]); err != nil {
				return out
			}
		case carriedLeft[xid]:
			delete(carriedLeft, xid)
			r, _ := getDataReply(p)
			out = append(out, r[4:])
		default:
			out = append(out, p[4:])
		}
	}
	return out
}
