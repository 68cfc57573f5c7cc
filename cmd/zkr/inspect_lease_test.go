package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

func TestInspect_DecodesTheStampOfATTLLease(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	s, err := semaphore.New(client(t), path, 2, semaphore.WithTTL(time.Minute), semaphore.WithData([]byte("job-a")))
	require.NoError(t, err)
	l, err := s.Acquire(ctxOf(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Release(ctxOf(t)) })

	r := inspectJSON(t, path)
	require.Len(t, r.Holders, 1)
	h := r.Holders[0]
	require.NotNil(t, h.Lease, "the stamp is decoded")
	assert.Equal(t, "ttl", h.Lease.Mode)
	assert.Equal(t, time.Minute.Milliseconds(), h.Lease.BoundMS)
	assert.Equal(t, "job-a", h.Data, "the user's data, without the stamp")
	assert.Equal(t, "0x0", h.Session, "a TTL node has no owner session")
	assert.Less(t, h.AgeMS, time.Hour.Milliseconds(), "its age counts from its creation")

	code, stdout, stderr := runZkr(t, "inspect", "--servers", zktest.Servers(t), path)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "ttl 1m0s")
	assert.Contains(t, stdout, "persistent")
	assert.Contains(t, stdout, `"job-a"`)
	assert.NotContains(t, stdout, "#zkrecipes-lease")
}

func TestInspect_WithoutMaxALeaseOfTheGuardHolderIsAcquiring(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	holder, acquirer := client(t), client(t)
	s, err := semaphore.New(holder, path, 1)
	require.NoError(t, err)
	l, err := s.Acquire(ctxOf(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Release(ctxOf(t)) })
	s2, err := semaphore.New(acquirer, path, 1)
	require.NoError(t, err)
	// Ends when the lease is given at the end of the test, or the client closes.
	go func() {
		if l, err := s2.Acquire(ctxOf(t)); err == nil {
			_ = l.Release(ctxOf(t))
		}
	}()
	require.Eventually(t, func() bool { return len(zktest.Children(t, holder, path+"/leases")) == 2 },
		time.Minute, 10*time.Millisecond, "the second acquirer has its lease node and waits")

	r := inspectJSON(t, path)
	assert.Equal(t, []string{hexSession(holder)}, sessions(r.Holders), "only the first lease holds")
	require.NotEmpty(t, r.Waiters)
	assert.Equal(t, "acquiring", r.Waiters[0].Role)
	assert.Equal(t, hexSession(acquirer), r.Waiters[0].Session)
}
