package framework_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// digestOnly creates path readable only by user:password's identity.
func digestOnly(t *testing.T, path, user, password string) {
	t.Helper()
	admin := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	require.NoError(t, admin.EnsurePath(ctx, path[:len(path)-len("/secret")]))
	_, err := admin.Create(ctx, path, []byte("secret"), framework.Persistent,
		framework.WithACL(zk.DigestACL(zk.PermAll, user, password)))
	require.NoError(t, err)
}

// The connection is cut as the answer to the first AddAuth is on its way:
// the client sends its credentials again on the next connection, and
// announces the session only once the server has accepted them, so the
// first call made on Connected already runs under the client's identity.
func TestAuth_CredentialsWhoseAnswerWasLostAreSentAgain(t *testing.T) {
	path := zktest.UniquePath(t) + "/secret"
	digestOnly(t, path, "alice", "pw")
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	proxy.DropNextReply(zktest.OpSetAuth)

	c, err := framework.New([]string{proxy.Addr()}, framework.WithAuth("digest", []byte("alice:pw")))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx := testContext(t)
	onConnected := make(chan error, 10)
	c.AddListener(func(s framework.StateChange) {
		_, _, err := c.Get(ctx, path) // on the announcement, the identity is there
		onConnected <- err
	})
	require.NoError(t, c.WaitConnected(ctx))
	require.Equal(t, 1, proxy.DroppedReplies(), "the AddAuth's answer was dropped")

	select {
	case err := <-onConnected:
		require.NoError(t, err, "the session was announced without the client's identity")
	case <-time.After(10 * time.Second):
		t.Fatal("no state announced")
	}
	data, _, err := c.Get(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, "secret", string(data))

	proxy.Cut() // later connections carry the credentials too
	require.Eventually(t, func() bool {
		_, _, err := c.Get(ctx, path)
		return err == nil
	}, 10*time.Second, 20*time.Millisecond)
}

// A scheme the server refuses fails Connect with ErrAuthFailed, at once,
// instead of a client that runs without its identity.
func TestAuth_RefusedSchemeFailsConnect(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := framework.Connect(ctx, []string{zktest.Servers(t)}, framework.WithAuth("no-such-scheme", []byte("x")))
	if c != nil {
		_ = c.Close()
	}
	require.ErrorIs(t, err, framework.ErrAuthFailed)
	assert.ErrorIs(t, err, zk.ErrAuthFailed)
	assert.NotErrorIs(t, err, context.DeadlineExceeded, "the refusal is reported, not waited out")
	assert.Contains(t, err.Error(), "no-such-scheme")
}

// With two credentials, the answer to the second is lost: go-zookeeper
// re-sends the first by itself on the next connection, the client sends
// the second, and the session carries both identities.
func TestAuth_SecondCredentialWhoseAnswerWasLostIsSentAgain(t *testing.T) {
	dir := zktest.UniquePath(t)
	digestOnly(t, dir+"/alice/secret", "alice", "pw")
	digestOnly(t, dir+"/bob/secret", "bob", "pw")
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	proxy.SetDelay(100 * time.Millisecond) // room to arm the drop between the two
	c, err := framework.New([]string{proxy.Addr()},
		framework.WithAuth("digest", []byte("alice:pw")), framework.WithAuth("digest", []byte("bob:pw")))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpSetAuth) == 1 }, 10*time.Second, time.Millisecond)
	proxy.DropNextReply(zktest.OpSetAuth) // alice's is on its way back; bob's is next
	ctx := testContext(t)
	require.NoError(t, c.WaitConnected(ctx))
	proxy.SetDelay(0)
	require.Equal(t, 1, proxy.DroppedReplies(), "the second AddAuth's answer was dropped")

	for _, who := range []string{"alice", "bob"} {
		_, _, err := c.Get(ctx, dir+"/"+who+"/secret")
		assert.NoError(t, err, "%s's identity", who)
	}
}

// After a refusal no connection is coming: a call fails at once with the
// refusal, instead of waiting for the connection timeout and retrying.
func TestAuth_CallsAfterARefusalFailWithIt(t *testing.T) {
	c, err := framework.New([]string{zktest.Servers(t)}, framework.WithAuth("no-such-scheme", []byte("x")),
		framework.WithConnectionTimeout(time.Minute))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.ErrorIs(t, c.WaitConnected(ctx), framework.ErrAuthFailed)

	_, _, err = c.Get(ctx, "/")
	require.ErrorIs(t, err, framework.ErrAuthFailed)
	assert.NoError(t, ctx.Err(), "the call waited")
}
