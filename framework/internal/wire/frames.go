package wire

import (
	"encoding/binary"
	"time"
)

// frameHeadLen is how much of each packet's body frameScanner collects:
// a reply's header (xid 4 bytes, zxid 8, error 4), or the start of the
// connect response (protocol version 4, timeout 4, session id 8).
const frameHeadLen = 16

// frameScanner follows the packets a server sends on one connection as
// they are read, whatever the sizes of the reads: a 4-byte big-endian
// length, then that many bytes. It copies only the length and the first
// frameHeadLen bytes of each body, and shows them to onHead with the
// packet's index on the connection (0 is the connect response). A length
// that cannot be a packet stops it for good: go-zookeeper fails on it too.
type frameScanner struct {
	onHead func(index int, head []byte)

	index    int // of the packet being read
	length   [4]byte
	lenHave  int  // bytes of length read
	inBody   bool // length read; left bytes of the body to come
	left     int
	head     [frameHeadLen]byte
	headHave int
	headWant int
	broken   bool
}

// scan follows the bytes p, just read from the connection.
func (s *frameScanner) scan(p []byte) {
	for len(p) > 0 && !s.broken {
		if !s.inBody {
			k := copy(s.length[s.lenHave:], p)
			s.lenHave += k
			p = p[k:]
			if s.lenHave < len(s.length) {
				return
			}
			s.startBody(int32(binary.BigEndian.Uint32(s.length[:])))
			continue
		}
		if s.headHave < s.headWant {
			s.headHave += copy(s.head[s.headHave:s.headWant], p)
			if s.headHave == s.headWant {
				s.onHead(s.index, s.head[:s.headWant])
			}
		}
		k := min(len(p), s.left)
		s.left -= k
		p = p[k:]
		if s.left == 0 {
			s.endBody()
		}
	}
}

// startBody begins a body of n bytes.
func (s *frameScanner) startBody(n int32) {
	s.lenHave = 0
	if n < 0 {
		s.broken = true
		return
	}
	s.inBody, s.left = true, int(n)
	s.headHave, s.headWant = 0, min(int(n), frameHeadLen)
	if n == 0 {
		s.onHead(s.index, nil)
		s.endBody()
	}
}

func (s *frameScanner) endBody() {
	s.inBody = false
	s.index++
}

// ConnectReply is what the client needs of ZooKeeper's ConnectResponse:
// protocolVersion int32, timeOut int32 (ms), sessionId int64, then the
// session's password, a length-prefixed buffer.
type ConnectReply struct {
	Timeout   time.Duration
	SessionID int64
}

// parseConnectReply reads the head of a connect response. ok is false for
// a head too short to hold the session id, or for the reply to a resumed
// session that has expired, which grants nothing (session id 0).
func parseConnectReply(head []byte) (r ConnectReply, ok bool) {
	if len(head) < 16 {
		return r, false
	}
	ms := int32(binary.BigEndian.Uint32(head[4:8]))
	r = ConnectReply{Timeout: time.Duration(ms) * time.Millisecond, SessionID: int64(binary.BigEndian.Uint64(head[8:16]))}
	return r, r.SessionID != 0 && ms > 0
}
