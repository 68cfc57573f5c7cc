package wire

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework/internal/lease"
)

const testGrant = time.Second

// testMargin is the client's default lease margin.
const testMargin = 0.05

// Request builds a request frame with a header: length, xid, opcode.
func Request(xid int32) []byte {
	b := make([]byte, 12)
	binary.BigEndian.PutUint32(b[0:], 8)
	binary.BigEndian.PutUint32(b[4:], uint32(xid))
	binary.BigEndian.PutUint32(b[8:], 11)
	return b
}

// ReplyHead builds a reply header: xid, zxid, error code.
func ReplyHead(xid, code int32) []byte {
	b := make([]byte, 16)
	binary.BigEndian.PutUint32(b[0:], uint32(xid))
	binary.BigEndian.PutUint32(b[12:], uint32(code))
	return b
}

// connectedTracker returns a tracker whose connect request was sent at
// clock reading at and answered for session id.
func connectedTracker(book *lease.Book, id int64, at int64) *AckTracker {
	tr := &AckTracker{Book: book}
	tr.Sending([]byte{0, 0, 0, 0}) // the connect request
	tr.connectSent = at
	tr.Connected(ConnectReply{Timeout: testGrant, SessionID: id})
	return tr
}

// lastSent returns the send instant of the newest request awaiting a reply.
func lastSent(tr *AckTracker) int64 {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.queue[len(tr.queue)-1].sent
}

func TestAckTracker_LeaseRunsFromTheSendInstantOfTheAnsweredRequest(t *testing.T) {
	book := lease.NewBook(lease.NewMonoClock(), testMargin, 0)
	length := int64(950 * time.Millisecond)
	tr := connectedTracker(book, 5, 1000)
	l := book.Find(5)
	require.NotNil(t, l)
	assert.Equal(t, 1000+length, l.Deadline(), "the connect request's send instant starts the lease")

	tr.Sending(Request(1))
	sent := lastSent(tr)
	tr.Replied(ReplyHead(notificationXid, 0))
	assert.Equal(t, 1000+length, l.Deadline(), "a notification proves nothing")
	tr.Replied(ReplyHead(99, 0))
	assert.Equal(t, 1000+length, l.Deadline(), "a reply to no request proves nothing")
	tr.Replied(ReplyHead(1, 0))
	assert.Equal(t, sent+length, l.Deadline())

	tr.Sending(Request(2))
	assert.Equal(t, sent+length, l.Deadline(), "a request whose reply never comes moves nothing")
}

func TestAckTracker_OutstandingPingsAreAnsweredInOrder(t *testing.T) {
	book := lease.NewBook(lease.NewMonoClock(), testMargin, 0)
	length := int64(950 * time.Millisecond)
	tr := connectedTracker(book, 5, 0)
	tr.Sending(Request(-2))
	first := lastSent(tr)
	tr.Sending(Request(-2))
	second := lastSent(tr)
	require.Less(t, first, second)

	tr.Replied(ReplyHead(-2, 0))
	assert.Equal(t, first+length, book.Find(5).Deadline(), "the first reply answers the first ping")
	tr.Replied(ReplyHead(-2, 0))
	assert.Equal(t, second+length, book.Find(5).Deadline())
}

func TestAckTracker_ReplyOfALostSessionProvesNothing(t *testing.T) {
	for _, code := range []int32{errSessionExpire, errSessionMoved} {
		book := lease.NewBook(lease.NewMonoClock(), testMargin, 0)
		tr := connectedTracker(book, 5, 0)
		before := book.Find(5).Deadline()
		tr.Sending(Request(1))
		tr.Replied(ReplyHead(1, code))
		assert.Equal(t, before, book.Find(5).Deadline(), "error %d", code)
	}
}

func TestAckTracker_ReconnectRestartsTheLeaseUnderTheNewGrant(t *testing.T) {
	book := lease.NewBook(lease.NewMonoClock(), testMargin, 0)
	length := int64(950 * time.Millisecond)
	first := connectedTracker(book, 5, 0)
	first.Sending(Request(1))
	sent := lastSent(first)
	first.Replied(ReplyHead(1, 0))
	require.Equal(t, sent+length, book.Find(5).Deadline())

	// The server counts the session's expiry from each connect request
	// with the timeout it granted then: a connect reply sets the lease to
	// its own send instant plus the new length.
	connectedTracker(book, 5, sent+10)
	assert.Equal(t, sent+10+length, book.Find(5).Deadline())

	// A reply on the old connection proves nothing under the new grant.
	first.Sending(Request(2))
	first.Replied(ReplyHead(2, 0))
	assert.Equal(t, sent+10+length, book.Find(5).Deadline())
}

// A reconnect of the same session granted a shorter timeout moves the
// lease back: the server now expires the session the new timeout after the
// connect request, whatever the old grant had proved (issue 27, row 1).
func TestAckTracker_AShorterGrantMovesTheLeaseBack(t *testing.T) {
	book := lease.NewBook(lease.NewMonoClock(), testMargin, 0)
	long := &AckTracker{Book: book}
	long.Sending([]byte{0, 0, 0, 0})
	long.Connected(ConnectReply{Timeout: 60 * time.Second, SessionID: 5})
	long.Sending(Request(1))
	long.Replied(ReplyHead(1, 0))

	short := &AckTracker{Book: book}
	short.Sending([]byte{0, 0, 0, 0})
	sent := short.connectSent
	short.Connected(ConnectReply{Timeout: 4 * time.Second, SessionID: 5})
	l := book.Find(5)
	assert.Equal(t, sent+int64(3800*time.Millisecond), l.Deadline(), "send of the connect request + T_new·(1−ε)")

	// Later replies extend it by the new grant only.
	short.Sending(Request(1))
	at := lastSent(short)
	short.Replied(ReplyHead(1, 0))
	assert.Equal(t, at+int64(3800*time.Millisecond), l.Deadline())
	long.Sending(Request(2))
	long.Replied(ReplyHead(2, 0))
	assert.Equal(t, at+int64(3800*time.Millisecond), l.Deadline(), "the old grant's replies prove nothing")
}

func TestAckTracker_NewSessionStartsAFreshLease(t *testing.T) {
	book := lease.NewBook(lease.NewMonoClock(), testMargin, 0)
	length := int64(950 * time.Millisecond)
	old := connectedTracker(book, 5, 5000)
	connectedTracker(book, 6, 100)
	assert.Equal(t, 100+length, book.Find(6).Deadline(), "nothing of the old session's lease carries over")
	old.Sending(Request(1))
	old.Replied(ReplyHead(1, 0))
	assert.Equal(t, 100+length, book.Find(6).Deadline(), "the old session's replies prove nothing for the new one")
}

func TestAckTracker_ForgetsTheOldestRequestsBeyondItsBound(t *testing.T) {
	book := lease.NewBook(lease.NewMonoClock(), testMargin, 0)
	tr := connectedTracker(book, 5, 0)
	for i := range maxUnanswered + 1 {
		tr.Sending(Request(int32(i + 1)))
	}
	before := book.Find(5).Deadline()
	tr.Replied(ReplyHead(1, 0))
	assert.Equal(t, before, book.Find(5).Deadline(), "the oldest request was forgotten")
	assert.Len(t, tr.queue, maxUnanswered)
}

func TestAckTracker_SteadyStateAllocatesNothing(t *testing.T) {
	tr := connectedTracker(lease.NewBook(lease.NewMonoClock(), testMargin, 0), 5, 0)
	req, rep := Request(-2), ReplyHead(-2, 0)
	tr.Sending(req)
	tr.Replied(rep)
	allocs := testing.AllocsPerRun(100, func() {
		tr.Sending(req)
		tr.Replied(rep)
	})
	assert.Zero(t, allocs)
}

// The cost the lease adds to each request and its reply.
func BenchmarkAckTracker_RequestAndReply(b *testing.B) {
	tr := connectedTracker(lease.NewBook(lease.NewMonoClock(), testMargin, 0), 5, 0)
	req, rep := Request(7), ReplyHead(7, 0)
	b.ReportAllocs()
	for b.Loop() {
		tr.Sending(req)
		tr.Replied(rep)
	}
}
