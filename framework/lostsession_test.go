package framework_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// lostMulti runs ops through c in the background with the reply held back
// by proxy, waits until the server has applied them (observer sees a child
// of dir), then lets between run, cuts the connection and releases the
// reply, which never reaches the client. It returns the Multi's error.
func lostMulti(t *testing.T, proxy *zktest.Proxy, c, observer *framework.Client, dir string, between func(), ops ...framework.Op) error {
	t.Helper()
	ctx := testContext(t)
	proxy.HoldRepliesFrom(zktest.OpMulti)
	done := make(chan error, 1)
	go func() { // ends when the Multi returns
		_, err := c.Multi(ctx, ops...)
		done <- err
	}()
	require.Eventually(t, func() bool { return len(zktest.Children(t, observer, dir)) > 0 }, 10*time.Second, 5*time.Millisecond,
		"the server applies the transaction")
	between()
	proxy.ReleaseReplies()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatal("the Multi never returned")
		return nil
	}
}

// A guarded transaction of protected ephemerals whose answer is lost, and
// whose session expires before the client can look: its ephemerals went
// with the session, so their absence proves nothing. Sent again in the new
// session, the guard would fail it and Multi would report ErrLost ("wrote
// nothing") for a transaction the server applied (issue 27, row 2).
func TestMulti_LostAnswerWhoseSessionExpiredIsOfUnknownOutcome(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(2*time.Second))
	observer := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	require.NoError(t, observer.EnsurePath(ctx, dir+"/leases"))
	held, err := c.Create(ctx, dir+"/held", nil, framework.Ephemeral)
	require.NoError(t, err)
	lease := zkpath.Join(dir+"/leases", zkpath.ProtectedName(zkpath.NewProtectionID(), "lease-"))

	err = lostMulti(t, proxy, c, observer, dir+"/leases", func() {
		// The session expires before the client reconnects.
		proxy.Pause()
		proxy.Cut()
		require.Eventually(t, func() bool {
			ok, _, err := observer.Exists(ctx, held)
			return err == nil && !ok
		}, 30*time.Second, 20*time.Millisecond, "the server expires the session")
		proxy.Resume()
	}, framework.GuardOp(held, -1), framework.CreateOp(lease, nil, framework.EphemeralSequential))
	require.ErrorIs(t, err, framework.ErrOutcomeUnknown)
	assert.NotErrorIs(t, err, zkrecipes.ErrLost, "the transaction ran: it wrote")
	assert.Empty(t, zktest.Children(t, observer, dir+"/leases"), "its lease went with its session")
}

// A transaction that enqueues a job (a protected persistent-sequential
// create) and whose answer is lost: a consumer takes the job before the
// client looks. Its absence proves nothing, so the transaction is never
// sent again; it once was, and one Multi that returned nil enqueued two
// jobs (issue 27, row 3).
func TestMulti_LostAnswerOfAProtectedPersistentCreateIsNeverSentAgain(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	consumer := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	queue := zktest.UniquePath(t)
	require.NoError(t, consumer.EnsurePath(ctx, queue))
	job := zkpath.Join(queue, zkpath.ProtectedName(zkpath.NewProtectionID(), "job-"))

	err := lostMulti(t, proxy, c, consumer, queue, func() {
		for _, name := range zktest.Children(t, consumer, queue) {
			require.NoError(t, consumer.Delete(ctx, zkpath.Join(queue, name), -1))
		}
		proxy.Cut()
	}, framework.CreateOp(job, []byte("work"), framework.PersistentSequential), framework.SetOp(queue, []byte("enqueued"), -1))
	require.ErrorIs(t, err, framework.ErrOutcomeUnknown)
	assert.Empty(t, zktest.Children(t, consumer, queue), "the job was enqueued once, and consumed")
	_, stat, err := consumer.Get(context.Background(), queue)
	require.NoError(t, err)
	assert.Equal(t, int32(1), stat.Version, "the set ran once")
}
