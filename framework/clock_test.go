package framework

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework/internal/lease"
	"github.com/zkrecipes/zkrecipes/framework/internal/wire"
)

// wallSteps steps the wall clock an hour at a time, both ways, several
// times: +1 h, 0, −1 h, 0, +1 h, 0.
var wallSteps = []time.Duration{time.Hour, -time.Hour, -time.Hour, time.Hour, time.Hour, -time.Hour}

// The lease runs on the monotonic reading alone: a request sent and
// answered after a step of the wall clock moves the deadline on by the
// time that passed, not by the step, and the lease neither runs out nor
// lasts longer.
func TestLease_AWallStepMovesNoDeadline(t *testing.T) {
	clk := NewSteppingClock()
	book := lease.NewBook(clk, DefaultLeaseMargin, 0)
	const granted = time.Minute
	length := book.Length(granted)
	tr := &wire.AckTracker{Book: book}
	tr.Sending([]byte{0, 0, 0, 0}) // the connect request
	tr.Connected(wire.ConnectReply{Timeout: granted, SessionID: 5})
	lapsed := make(chan struct{})
	s := newSession(5, book.Find(5), func(*Session) { close(lapsed) })
	defer s.abandon()
	held := s.Interrupted(SessionErrorPolicy)

	for i, step := range wallSteps {
		before, ok := s.LeaseDeadline()
		require.True(t, ok)
		clk.Step(step)
		xid := int32(i + 1)
		tr.Sending(request(xid))
		tr.Replied(replyHead(xid, 0))
		after, _ := s.LeaseDeadline()
		moved := after.Sub(before)
		assert.True(t, moved >= 0 && moved < time.Minute, "step %d (%v): a reply moved the deadline by %v", i, step, moved)
		assert.Contains(t, after.String(), "m=", "the deadline carries its monotonic reading")
		left := time.Until(after)
		assert.True(t, left > 0 && left <= length, "step %d (%v): the lease runs %v more, of %v", i, step, left, length)
		assert.False(t, s.LeaseRanOut(), "step %d (%v)", i, step)
	}
	assert.False(t, isClosedChan(held), "the lease held across the steps")
	assert.False(t, isClosedChan(lapsed), "the lease never lapsed")
}

// request builds a request frame with a header: length, xid, opcode.
func request(xid int32) []byte {
	b := make([]byte, 12)
	binary.BigEndian.PutUint32(b[0:], 8)
	binary.BigEndian.PutUint32(b[4:], uint32(xid))
	binary.BigEndian.PutUint32(b[8:], 11)
	return b
}

// replyHead builds a reply header: xid, zxid, error code.
func replyHead(xid, code int32) []byte {
	b := make([]byte, 16)
	binary.BigEndian.PutUint32(b[0:], uint32(xid))
	binary.BigEndian.PutUint32(b[12:], uint32(code))
	return b
}
