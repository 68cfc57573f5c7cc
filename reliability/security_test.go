package reliability_test

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// Credentials of the security tests: no log line and no error may hold a
// password, or the digest the server keeps of it.
const (
	alicePassword   = "alice-Pa55w0rd-never-logged"
	malloryPassword = "mallory-Pa55w0rd-never-logged"
)

// logSink collects a client's log output, at every level.
type logSink struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *logSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *logSink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func (s *logSink) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(s, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// digest returns the server's form of user:password, user:base64(sha1).
func digest(user, password string) string {
	sum := sha1.Sum([]byte(user + ":" + password))
	return user + ":" + base64.StdEncoding.EncodeToString(sum[:])
}

// creatorOnlyUnder gives the nodes under root all permissions for their
// creator's identities alone, and the ancestors of root (shared by other
// tests) the open ACL.
func creatorOnlyUnder(root string) framework.ACLProvider {
	open, creator := zk.WorldACL(zk.PermAll), zk.AuthACL(zk.PermAll)
	return framework.ACLFunc(func(path string) []zk.ACL {
		if strings.HasPrefix(path, root+"/") {
			return creator
		}
		return open
	})
}

// With digest credentials and a creator-only ACL, a client with other
// credentials, or none, can neither delete a holder's node nor write a
// revocation into it, nor queue on the lock: each try fails at once with
// zk.ErrNoAuth, and the hold lasts. A client with the holder's credentials
// can, which shows that the ACL, not chance, kept the others out. No log
// line and no error of any of them holds a password.
func TestSecurity_CreatorOnlyACLKeepsOtherCredentialsOut(t *testing.T) {
	servers := zktest.Servers(t)
	ctx := zktest.Context(t)
	root := zktest.UniquePath(t)
	var logs logSink
	var errs []error
	alice := zktest.Connect(t, servers, framework.WithAuth("digest", []byte("alice:"+alicePassword)),
		framework.WithACLProvider(creatorOnlyUnder(root)), framework.WithLogger(logs.logger()))
	mallory := zktest.Connect(t, servers, framework.WithAuth("digest", []byte("mallory:"+malloryPassword)),
		framework.WithLogger(logs.logger()))
	anonymous := zktest.Connect(t, servers, framework.WithLogger(logs.logger()))
	m, err := mutex.New(alice, root+"/mutex")
	require.NoError(t, err)
	h, err := m.Acquire(ctx)
	require.NoError(t, err)
	s, err := semaphore.New(alice, root+"/semaphore", 2)
	require.NoError(t, err)
	lease, err := s.Acquire(ctx)
	require.NoError(t, err)

	for name, other := range map[string]*framework.Client{"other credentials": mallory, "no credentials": anonymous} {
		t.Run(name, func(t *testing.T) {
			denied := func(what string, err error) {
				t.Helper()
				require.ErrorIs(t, err, zk.ErrNoAuth, what)
				errs = append(errs, err)
			}
			denied("delete the lock node", other.Delete(ctx, h.Node(), -1))
			denied("revoke the lock", mutex.Revoke(ctx, other, h.Node()))
			_, err := other.Set(ctx, h.Node(), []byte("__REVOKE__"), -1)
			denied("set the lock node", err)
			denied("delete the lease", other.Delete(ctx, lease.Node(), -1))
			_, err = other.Set(ctx, lease.Node(), []byte("mine"), -1)
			denied("set the lease", err)
			om, err := mutex.New(other, root+"/mutex")
			require.NoError(t, err)
			_, err = om.AcquireTimeout(ctx, 5*time.Second)
			denied("queue on the lock", err)
			os, err := semaphore.New(other, root+"/semaphore", 2)
			require.NoError(t, err)
			_, err = os.AcquireTimeout(ctx, 5*time.Second)
			denied("take a lease", err)
		})
	}
	assert.NoError(t, h.Err(), "the hold lasts")
	assert.NoError(t, lease.Err(), "the lease lasts")
	data, _, err := alice.Get(ctx, h.Node())
	require.NoError(t, err)
	assert.Empty(t, data, "no revocation was written")

	aliceAgain := zktest.Connect(t, servers, framework.WithAuth("digest", []byte("alice:"+alicePassword)),
		framework.WithLogger(logs.logger()))
	require.NoError(t, mutex.Revoke(ctx, aliceAgain, h.Node()), "the same identity may write")
	require.NoError(t, h.Release(ctx))
	require.NoError(t, lease.Release(ctx))

	_, err = framework.New([]string{servers}, framework.WithAuth("", []byte("alice:"+alicePassword)))
	require.ErrorIs(t, err, framework.ErrInvalidOption)
	errs = append(errs, err)
	assertNoCredentials(t, logs.String(), errs)
}

// Credentials the server refuses (of a scheme it does not know) are
// reported, without the credentials.
func TestSecurity_RefusedCredentialsAreNotLogged(t *testing.T) {
	var logs logSink
	c, err := framework.New([]string{zktest.Servers(t)}, framework.WithAuth("nosuchscheme", []byte("alice:"+alicePassword)),
		framework.WithLogger(logs.logger()), framework.WithSessionTimeout(2*time.Second))
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var errs []error
	if err := c.WaitConnected(ctx); err != nil {
		errs = append(errs, err)
	} else {
		_, _, err := c.Children(ctx, "/")
		errs = append(errs, err)
	}
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "auth") }, 10*time.Second, 20*time.Millisecond,
		"the refusal is logged")
	assertNoCredentials(t, logs.String(), errs)
}

// Two clients in different namespaces, on the same lock path, never see
// each other: both hold at once, and each lists only its own node.
func TestSecurity_NamespacesNeverSeeEachOthersLocks(t *testing.T) {
	servers := zktest.Servers(t)
	ctx := zktest.Context(t)
	base := zktest.UniquePath(t)
	one := zktest.Connect(t, servers, framework.WithNamespace(base+"/one"))
	two := zktest.Connect(t, servers, framework.WithNamespace(base+"/two"))
	observer := zktest.Connect(t, servers)

	m1, err := mutex.New(one, "/locks/shared")
	require.NoError(t, err)
	m2, err := mutex.New(two, "/locks/shared")
	require.NoError(t, err)
	h1, err := m1.TryAcquire(ctx)
	require.NoError(t, err)
	h2, err := m2.TryAcquire(ctx)
	require.NoError(t, err, "the other namespace's hold does not count")
	p1, err := m1.Participants(ctx)
	require.NoError(t, err)
	p2, err := m2.Participants(ctx)
	require.NoError(t, err)
	assert.Equal(t, []mutex.Participant{{Node: h1.Node()}}, p1)
	assert.Equal(t, []mutex.Participant{{Node: h2.Node()}}, p2)
	assert.Len(t, zktest.Children(t, observer, base+"/one/locks/shared"), 1)
	assert.Len(t, zktest.Children(t, observer, base+"/two/locks/shared"), 1)

	s1, err := semaphore.New(one, "/sem", 1)
	require.NoError(t, err)
	s2, err := semaphore.New(two, "/sem", 1)
	require.NoError(t, err)
	l1, err := s1.AcquireTimeout(ctx, 5*time.Second)
	require.NoError(t, err)
	l2, err := s2.AcquireTimeout(ctx, 5*time.Second)
	require.NoError(t, err, "each namespace has its own single lease")

	_, _, err = one.Get(ctx, "/../two/locks")
	require.ErrorIs(t, err, framework.ErrInvalidPath, "no way out of a namespace")
	require.NoError(t, h1.Release(ctx))
	require.NoError(t, h2.Release(ctx))
	require.NoError(t, l1.Release(ctx))
	require.NoError(t, l2.Release(ctx))
}

// assertNoCredentials checks that neither the log nor any error holds a
// password or its digest.
func assertNoCredentials(t interface {
	assert.TestingT
	Helper()
}, log string, errs []error) {
	t.Helper()
	secrets := []string{alicePassword, malloryPassword, digest("alice", alicePassword), digest("mallory", malloryPassword)}
	for _, secret := range secrets {
		assert.NotContains(t, log, secret, "a log line holds a credential")
		for _, err := range errs {
			if err != nil {
				assert.NotContains(t, err.Error(), secret, "an error holds a credential")
			}
		}
	}
	assert.NotEmpty(t, log, "the clients logged something")
}

// failures records what an assertion reports, to test the assertion.
type failures struct{ n int }

func (f *failures) Errorf(string, ...any) { f.n++ }
func (f *failures) Helper()               {}

// The credential check fails on a password or its digest in a log line or
// an error.
func TestSecurity_TheCredentialCheckCanFail(t *testing.T) {
	var f failures
	assertNoCredentials(&f, "level=DEBUG msg=auth id="+digest("alice", alicePassword), nil)
	assert.Equal(t, 1, f.n, "a digest in the log")
	f = failures{}
	assertNoCredentials(&f, "ok", []error{errors.New("auth alice:" + alicePassword + " failed")})
	assert.Equal(t, 1, f.n, "a password in an error")
	f = failures{}
	assertNoCredentials(&f, "ok", []error{errors.New("auth failed")})
	assert.Zero(t, f.n)
}
