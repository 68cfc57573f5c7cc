package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

func TestZkr_MalformedServersIsUsage(t *testing.T) {
	t.Parallel()
	for _, servers := range []string{"a:b:c", "127.0.0.1:99999", "127.0.0.1:x", ":2181", ","} {
		code, _, stderr := runZkr(t, "lock", "--servers", servers, "/a", "--", "true")
		assert.Equal(t, exitUsage, code, "--servers %q: %s", servers, stderr)
	}
}

func TestZkr_UnresolvableHostIsUnreachable(t *testing.T) {
	t.Parallel()
	// A label longer than 63 bytes never resolves, and the resolver says
	// so without asking a name server.
	host := strings.Repeat("x", 64) + ".example"
	code, _, stderr := runZkr(t, "lock", "--servers", host+":2181", "/a", "--", "true")
	assert.Equal(t, exitUnreachable, code, stderr)
}

func TestZkr_TimeoutBoundsTheConnectionWait(t *testing.T) {
	t.Parallel()
	zktest.Integration(t)
	// Port 1 on loopback refuses; only --timeout can end the wait.
	p := startZkr(t, nil, "lock", "--servers", "127.0.0.1:1", "--connect-timeout", "1h", "--timeout", "500ms", "/a", "--", "true")
	assert.Equal(t, exitUnreachable, p.wait(t, time.Minute), p.stderr.String())
}

func TestLock_ServerGoneWhileWaitingIsUnreachable(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	c := client(t)
	m, err := mutex.New(c, path)
	require.NoError(t, err)
	hold, err := m.Acquire(ctxOf(t))
	require.NoError(t, err)
	defer func() { _ = hold.Release(ctxOf(t)) }()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	p := startZkr(t, nil, "lock", "--servers", proxy.Addr(), "--session-timeout", "2s", "--connect-timeout", "2s", path, "--", "true")
	require.Eventually(t, func() bool { return len(zktest.Children(t, c, path)) == 2 }, time.Minute, 20*time.Millisecond)
	proxy.Pause()
	assert.Equal(t, exitUnreachable, p.wait(t, time.Minute), p.stderr.String())
	proxy.Resume()
}

func TestLock_NamespaceAsCuratorUsersWriteIt(t *testing.T) {
	t.Parallel()
	c := client(t)
	for _, tc := range []struct {
		name  string
		flags func(ns string) []string
	}{
		{"chroot in the connect string", func(ns string) []string { return []string{"--servers", zktest.Servers(t) + "/" + ns} }},
		{"namespace without a slash", func(ns string) []string { return []string{"--servers", zktest.Servers(t), "--namespace", ns} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := strings.TrimPrefix(zktest.UniquePath(t), "/")
			g := newGate(t)
			args := append(append([]string{"lock"}, tc.flags(ns)...), append([]string{"/job", "--"}, g.argv("exit 0")...)...)
			p := startZkr(t, nil, args...)
			require.Eventually(t, g.started, time.Minute, 20*time.Millisecond, p.stderr.String())
			assert.Len(t, zktest.Children(t, c, "/"+ns+"/job"), 1, "the lock node is under the namespace")
			g.open(t)
			assert.Equal(t, 0, p.wait(t, time.Minute), p.stderr.String())
		})
	}
	code, _, stderr := runZkr(t, "lock", "--servers", zktest.Servers(t)+"/a", "--namespace", "/b", "/job", "--", "true")
	assert.Equal(t, exitUsage, code, stderr)
}
