package framework

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/zkrecipes/zkrecipes/framework/internal/lease"
)

// A lease moved back by a shorter grant lapses at its new deadline, not at
// the one the old grant had set its timer for.
func TestSession_AShorterGrantLapsesAtTheNewDeadline(t *testing.T) {
	book := lease.NewBook(lease.NewMonoClock(), DefaultLeaseMargin, 0)
	lapsed := make(chan *Session, 1)
	s := newSession(1, leaseOf(book, time.Hour), func(s *Session) { lapsed <- s })
	defer s.abandon()
	s.lease.Regrant(book.Clock.Now(), 50*time.Millisecond)
	select {
	case <-lapsed:
	case <-time.After(10 * time.Second):
		t.Fatal("the lease kept the old grant's deadline")
	}
	assert.True(t, s.IsInterrupted(SessionErrorPolicy))
}

func TestLeaseMargin_Validated(t *testing.T) {
	for _, eps := range []float64{-0.01, 0.51, 1} {
		_, err := New([]string{"127.0.0.1:1"}, WithLeaseMargin(eps))
		assert.ErrorIs(t, err, ErrInvalidOption, "margin %v", eps)
	}
	var nan float64
	nan /= nan
	_, err := New([]string{"127.0.0.1:1"}, WithLeaseMargin(nan))
	assert.ErrorIs(t, err, ErrInvalidOption, "NaN")
}

// leaseOf returns a lease running out after d.
func leaseOf(book *lease.Book, d time.Duration) *lease.Lease {
	l := book.Of(1)
	l.Regrant(book.Clock.Now(), d)
	return l
}

func TestSession_LeaseLapseInterruptsUnderBothPolicies(t *testing.T) {
	book := lease.NewBook(lease.NewMonoClock(), DefaultLeaseMargin, 0)
	lapsed := make(chan *Session, 1)
	s := newSession(1, leaseOf(book, 50*time.Millisecond), func(s *Session) { lapsed <- s })
	defer s.abandon()
	standard, session := s.Interrupted(StandardErrorPolicy), s.Interrupted(SessionErrorPolicy)
	assert.False(t, isClosedChan(session), "the lease runs")

	select {
	case <-lapsed:
	case <-time.After(10 * time.Second):
		t.Fatal("the lease never lapsed")
	}
	assert.True(t, isClosedChan(standard))
	assert.True(t, isClosedChan(session))
	assert.True(t, s.IsInterrupted(SessionErrorPolicy))
	assert.False(t, s.IsLost(), "a lapse is not a loss: the session may live")

	// A reply in the same session: holds told of the lapse stay ended,
	// new ones can begin.
	s.lease.Advance(1, book.Clock.Now(), time.Hour)
	assert.True(t, isClosedChan(standard))
	assert.True(t, isClosedChan(session))
	assert.False(t, s.IsInterrupted(StandardErrorPolicy))
	assert.False(t, s.IsInterrupted(SessionErrorPolicy))
}

func TestSession_RenewalWhileSuspendedKeepsTheStandardPolicyInterrupted(t *testing.T) {
	book := lease.NewBook(lease.NewMonoClock(), DefaultLeaseMargin, 0)
	lapsed := make(chan *Session, 1)
	s := newSession(1, leaseOf(book, 10*time.Millisecond), func(s *Session) { lapsed <- s })
	defer s.abandon()
	s.suspend()
	<-lapsed
	s.lease.Advance(1, book.Clock.Now(), time.Hour)
	assert.True(t, s.IsInterrupted(StandardErrorPolicy), "still suspended")
	assert.False(t, s.IsInterrupted(SessionErrorPolicy))
	s.resume()
	assert.False(t, s.IsInterrupted(StandardErrorPolicy))
}

func TestSession_WithoutALeaseEndsOnConnectionEventsAlone(t *testing.T) {
	s := newSession(1, nil, nil)
	_, ok := s.LeaseDeadline()
	assert.False(t, ok)
	assert.False(t, s.IsInterrupted(SessionErrorPolicy))
	s.suspend()
	assert.True(t, s.IsInterrupted(StandardErrorPolicy))
	assert.False(t, s.IsInterrupted(SessionErrorPolicy), "only loss ends a hold under the session policy")
	s.abandon()
	assert.True(t, s.IsInterrupted(SessionErrorPolicy))
}

func TestSession_AbandonStopsTheLeaseTimer(t *testing.T) {
	book := lease.NewBook(lease.NewMonoClock(), DefaultLeaseMargin, 0)
	s := newSession(1, leaseOf(book, time.Hour), func(*Session) { t.Error("lapse after abandon") })
	s.abandon()
	s.mu.Lock()
	stopped := !s.timer.Stop()
	s.mu.Unlock()
	assert.True(t, stopped, "the timer no longer runs")
	assert.True(t, s.IsInterrupted(SessionErrorPolicy))
}

func TestServerLag_Validated(t *testing.T) {
	_, err := New([]string{"127.0.0.1:1"}, WithServerLag(-time.Millisecond))
	assert.ErrorIs(t, err, ErrInvalidOption, "negative")
	_, err = New([]string{"127.0.0.1:1"}, WithServerLag(time.Second), WithSessionTimeout(2*time.Second))
	assert.ErrorIs(t, err, ErrInvalidOption, "a timeout too short for the lag")
	_, err = New([]string{"127.0.0.1:1"}, WithSessionTimeout(2*time.Second), WithServerLag(time.Second))
	assert.ErrorIs(t, err, ErrInvalidOption, "whatever the order of the options")
}
