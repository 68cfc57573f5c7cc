package wire

import (
	"encoding/binary"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework/internal/lease"
)

// maxUnanswered bounds the requests an AckTracker remembers. Forgetting
// the oldest only errs towards loss: its reply then proves nothing.
const maxUnanswered = 1 << 14

// Reply xids and error codes that prove nothing about the session.
const (
	notificationXid  = -1   // a watch event: the server sends it unasked
	errSessionExpire = -112 // ZooKeeper's SESSIONEXPIRED
	errSessionMoved  = -118 // SESSIONMOVED: another server has the session
)

// sentRequest is a request written on a connection, awaiting its reply.
type sentRequest struct {
	xid  int32
	sent int64 // clock reading taken before the write began
}

// AckTracker follows one server connection for the session lease: it
// records when each request is written and, when the reply with that xid
// arrives, advances the lease of the connection's session. The server
// answers a session's requests in the order they arrive, pings (xid -2,
// several may be outstanding) included, so the requests wait in a queue
// and a reply settles every request queued before its own.
type AckTracker struct {
	Book *lease.Book

	mu          sync.Mutex // guards the fields below; never held across I/O
	writes      int        // frames written; the first is the connect request
	connectSent int64
	queue       []sentRequest
	lease       *lease.Lease  // the session's, from the connect response
	epoch       int64         // the grant of this connection, in lease
	length      time.Duration // T·(1−ε) of the granted T
}

// Sending records a request frame about to be written.
func (t *AckTracker) Sending(frame []byte) {
	now := t.Book.Clock.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.writes++
	if t.writes == 1 {
		t.connectSent = now // the connect request has no header
		return
	}
	if len(frame) < 8 {
		return
	}
	if len(t.queue) == maxUnanswered {
		t.queue = t.queue[:copy(t.queue, t.queue[1:])]
	}
	t.queue = append(t.queue, sentRequest{xid: int32(binary.BigEndian.Uint32(frame[4:8])), sent: now})
}

// Connected starts the session's lease, or its new grant, from the
// connect request: the server had the session alive when it answered it,
// and counts its expiry from then with the timeout it granted now.
func (t *AckTracker) Connected(r ConnectReply) {
	l := t.Book.Of(r.SessionID)
	length := t.Book.Length(r.Timeout)
	t.mu.Lock()
	sent := t.connectSent
	t.mu.Unlock()
	epoch := l.Regrant(sent, length)
	t.mu.Lock()
	t.lease, t.epoch, t.length = l, epoch, length
	t.mu.Unlock()
}

// Replied follows the header of a reply: xid, zxid, error code.
func (t *AckTracker) Replied(head []byte) {
	if len(head) < 16 {
		return
	}
	xid := int32(binary.BigEndian.Uint32(head[0:4]))
	code := int32(binary.BigEndian.Uint32(head[12:16]))
	if xid == notificationXid {
		return
	}
	t.mu.Lock()
	i := 0
	for i < len(t.queue) && t.queue[i].xid != xid {
		i++
	}
	if i == len(t.queue) {
		t.mu.Unlock()
		return
	}
	sent := t.queue[i].sent
	// Shift what is left to the front: the queue keeps its array, so a
	// connection in its steady state allocates nothing per request.
	t.queue = t.queue[:copy(t.queue, t.queue[i+1:])]
	l, epoch, length := t.lease, t.epoch, t.length
	t.mu.Unlock()
	if l == nil || code == errSessionExpire || code == errSessionMoved {
		return
	}
	l.Advance(epoch, sent, length)
}
