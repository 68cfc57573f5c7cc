package framework

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
)

func TestExponentialBackoff_StaysWithinBoundsAndStops(t *testing.T) {
	p := ExponentialBackoff(10*time.Millisecond, 200*time.Millisecond, 5)
	for attempt := range 5 {
		for range 100 {
			wait, ok := p.AllowRetry(attempt, 0)
			assert.True(t, ok)
			assert.GreaterOrEqual(t, wait, 10*time.Millisecond)
			assert.LessOrEqual(t, wait, min(10*time.Millisecond<<(attempt+1), 200*time.Millisecond))
		}
	}
	_, ok := p.AllowRetry(5, 0)
	assert.False(t, ok)
}

func TestExponentialBackoff_NeverOverflows(t *testing.T) {
	p := ExponentialBackoff(time.Hour, 24*time.Hour, 1000)
	for attempt := range maxExponentialRetries {
		wait, ok := p.AllowRetry(attempt, 0)
		assert.True(t, ok)
		assert.Positive(t, wait)
		assert.LessOrEqual(t, wait, 24*time.Hour)
	}
	_, ok := p.AllowRetry(maxExponentialRetries, 0)
	assert.False(t, ok, "retries are capped at 29")
}

func TestRetryPolicies(t *testing.T) {
	tests := []struct {
		name     string
		policy   RetryPolicy
		attempt  int
		elapsed  time.Duration
		wantWait time.Duration
		wantOK   bool
	}{
		{"n times allows the nth", RetryNTimes(3, time.Second), 2, 0, time.Second, true},
		{"n times refuses after", RetryNTimes(3, time.Second), 3, 0, time.Second, false},
		{"until elapsed allows before", RetryUntilElapsed(time.Minute, time.Second), 50, 30 * time.Second, time.Second, true},
		{"until elapsed refuses a wait past the end", RetryUntilElapsed(time.Minute, time.Second), 50, 59500 * time.Millisecond, time.Second, false},
		{"forever", RetryForever(time.Millisecond), 1 << 20, 24 * time.Hour, time.Millisecond, true},
		{"none", NoRetry(), 0, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wait, ok := tt.policy.AllowRetry(tt.attempt, tt.elapsed)
			assert.Equal(t, tt.wantOK, ok)
			if ok {
				assert.Equal(t, tt.wantWait, wait)
			}
		})
	}
}

func TestIsRetryable(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{zk.ErrConnectionClosed, true},
		{fmt.Errorf("wrapped: %w", zk.ErrConnectionClosed), true},
		{zk.ErrSessionMoved, true},
		{zk.ErrNoServer, true},
		{ErrNotConnected, true},
		// go-zookeeper hands a request the error of its failed write on a
		// connection the peer has cut: the connection is lost.
		{&net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.ECONNRESET)}, true},
		{&net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}, true},
		{&net.OpError{Op: "write", Net: "tcp", Err: os.ErrDeadlineExceeded}, true},
		{zk.ErrSessionExpired, false},
		{zk.ErrNoNode, false},
		{zk.ErrNodeExists, false},
		{ErrClosed, false},
		{errors.New("other"), false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, IsRetryable(tt.err), "%v", tt.err)
	}
}
