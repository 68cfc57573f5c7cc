package framework

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestConnectionState_String(t *testing.T) {
	assert.Equal(t, "connected", Connected.String())
	assert.Equal(t, "suspended", Suspended.String())
	assert.Equal(t, "reconnected", Reconnected.String())
	assert.Equal(t, "lost", Lost.String())
	assert.Equal(t, "read-only", ReadOnly.String())
	assert.Equal(t, "ConnectionState(9)", ConnectionState(9).String())
}

func TestErrorPolicy_IsErrorState(t *testing.T) {
	for _, s := range []ConnectionState{Connected, Suspended, Reconnected, Lost, ReadOnly} {
		assert.Equal(t, s == Suspended || s == Lost, StandardErrorPolicy.IsErrorState(s), "standard %v", s)
		assert.Equal(t, s == Lost, SessionErrorPolicy.IsErrorState(s), "session %v", s)
	}
}

func TestSession_SuspendResumeAbandon(t *testing.T) {
	s := newSession(42, nil, nil)
	first := s.Suspended()
	assert.False(t, isClosedChan(first))
	s.suspend()
	assert.True(t, isClosedChan(first))
	assert.True(t, isClosedChan(s.Suspended()), "suspended now: the channel is closed")
	s.resume()
	second := s.Suspended()
	assert.False(t, isClosedChan(second))
	assert.False(t, s.IsLost())
	s.abandon()
	assert.True(t, isClosedChan(second))
	assert.True(t, s.IsLost())
	assert.True(t, isClosedChan(s.Interrupted(SessionErrorPolicy)))
}

func TestHostProvider_PausesOnlyAfterEveryServerFailed(t *testing.T) {
	hp := &hostProvider{}
	if err := hp.Init([]string{"127.0.0.1:1", "127.0.0.1:2"}); err != nil {
		t.Fatal(err)
	}
	_, pause := hp.Next()
	assert.False(t, pause)
	hp.Connected()
	_, pause = hp.Next()
	assert.False(t, pause, "the first reconnect is immediate")
	_, pause = hp.Next()
	assert.False(t, pause)
	_, pause = hp.Next()
	assert.True(t, pause, "every server failed since the last connection")
}

func isClosedChan(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// A session abandoned for good is lost by the time a hold under the
// session policy is told of its interruption, so that the hold names the
// loss of the session as the cause, not a suspension.
func TestSession_AbandonIsLostBeforeSessionPolicyHoldsAreInterrupted(t *testing.T) {
	for range 5000 {
		s := newSession(42, nil, nil)
		interrupted := s.Interrupted(SessionErrorPolicy)
		lost := make(chan bool, 1)
		go func() {
			<-interrupted
			lost <- s.IsLost()
		}()
		s.abandon()
		if !<-lost {
			t.Fatal("interrupted under the session policy before the session was lost")
		}
	}
}
