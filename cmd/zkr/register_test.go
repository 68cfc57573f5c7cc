package main

import (
	"encoding/json"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/discovery"
)

// instancesOf returns the instances of name under base.
func instancesOf(t *testing.T, base, name string) []discovery.Instance[json.RawMessage] {
	t.Helper()
	insts, err := registry(t, base).Instances(ctxOf(t), name)
	require.NoError(t, err)
	return insts
}

// registerArgs is `zkr register --servers S --base B [flags] NAME -- argv`,
// S a proxy of the shared server whose requests the test counts.
func registerArgs(t *testing.T, proxy *zktest.Proxy, base string, flags []string, argv ...string) []string {
	args := append([]string{"register", "--servers", proxy.Addr(), "--base", base}, flags...)
	args = append(args, "web", "--address", "web.example", "--port", "8080")
	if argv == nil {
		return args
	}
	return append(append(args, "--"), argv...)
}

func TestRegister_TheInstanceExistsWhileTheCommandRuns(t *testing.T) {
	t.Parallel()
	base, proxy := zktest.UniquePath(t), zktest.NewProxy(t, zktest.Servers(t))
	g := newGate(t)
	argv := g.argv(`echo "$ZKR_SERVICE_ID" > "$1/id"; exit 3`)
	p := startZkr(t, nil, registerArgs(t, proxy, base, []string{"--id", "w1", "--ssl-port", "8443", "--payload", `{"zone": "a"}`,
		"--uri-spec", "{scheme}://{address}:{ssl-port}"}, argv...)...)
	require.Eventually(t, g.started, time.Minute, 20*time.Millisecond, "zkr never ran its command: %s", p.stderr)

	insts := instancesOf(t, base, "web")
	require.Len(t, insts, 1, "registered before COMMAND starts")
	i := insts[0]
	assert.Equal(t, "w1", i.ID)
	assert.Equal(t, "web.example", i.Address)
	require.NotNil(t, i.Port)
	assert.Equal(t, 8080, *i.Port)
	require.NotNil(t, i.SSLPort)
	assert.Equal(t, 8443, *i.SSLPort)
	assert.Equal(t, discovery.Dynamic, i.ServiceType)
	assert.JSONEq(t, `{"zone":"a"}`, string(i.Payload))
	assert.Equal(t, "java.util.LinkedHashMap", i.PayloadClass())
	assert.Equal(t, "https://web.example:8443", i.BuildURI(nil))
	assert.WithinDuration(t, time.Now(), time.UnixMilli(i.RegistrationTimeUTC), time.Minute)
	ok, stat, err := client(t).Exists(ctxOf(t), base+"/web/w1")
	require.NoError(t, err)
	require.True(t, ok)
	assert.NotZero(t, stat.EphemeralOwner, "a dynamic instance is ephemeral")

	g.open(t)
	assert.Equal(t, 3, p.wait(t, time.Minute), "zkr exits with COMMAND's status: %s", p.stderr)
	assert.Empty(t, instancesOf(t, base, "web"), "unregistered when COMMAND exits")
	assert.True(t, unregistered(proxy), "zkr unregistered the instance")
	assert.True(t, g.file("id"))
}

func TestRegister_SIGTERMStopsTheCommandAndUnregisters(t *testing.T) {
	t.Parallel()
	base, proxy := zktest.UniquePath(t), zktest.NewProxy(t, zktest.Servers(t))
	g := newGate(t)
	argv := g.argv("")
	argv[2] = `trap 'touch "$1/term"; exit 9' TERM; ` + argv[2]
	p := startZkr(t, nil, registerArgs(t, proxy, base, nil, argv...)...)
	require.Eventually(t, g.started, time.Minute, 20*time.Millisecond, "zkr never ran its command: %s", p.stderr)
	require.Len(t, instancesOf(t, base, "web"), 1)
	p.signal(t, syscall.SIGTERM)
	assert.Equal(t, 9, p.wait(t, time.Minute), "zkr exits with the status the command chose on SIGTERM")
	assert.True(t, g.file("term"), "the command got SIGTERM")
	assert.Empty(t, instancesOf(t, base, "web"), "unregistered at once")
	assert.True(t, unregistered(proxy), "zkr unregistered the instance")
}

func TestRegister_WithoutCommandStaysUntilInterrupted(t *testing.T) {
	t.Parallel()
	base, proxy := zktest.UniquePath(t), zktest.NewProxy(t, zktest.Servers(t))
	p := startZkr(t, nil, registerArgs(t, proxy, base, []string{"--id", "w2"})...)
	lines := p.waitLines(t, 2)
	assert.Equal(t, []string{"ZKR_SERVICE_NODE=" + base + "/web/w2", "ZKR_SERVICE_ID=w2"}, lines)
	require.Len(t, instancesOf(t, base, "web"), 1)
	p.signal(t, syscall.SIGINT)
	assert.Equal(t, 0, p.wait(t, time.Minute), p.stderr.String())
	assert.Empty(t, instancesOf(t, base, "web"), "unregistered at once")
	assert.True(t, unregistered(proxy), "zkr unregistered the instance")
}

// unregistered tells whether zkr deleted its instance itself, rather than
// leaving it to the end of its session (which also deletes it, at once
// when zkr closes the session as it exits).
func unregistered(proxy *zktest.Proxy) bool { return proxy.Requests(zktest.OpDelete) > 0 }

// A zkr killed with SIGKILL cannot unregister: its instance goes with its
// session, within --session-timeout.
func TestRegister_SIGKILLedInstanceGoesWithTheSession(t *testing.T) {
	t.Parallel()
	base, proxy := zktest.UniquePath(t), zktest.NewProxy(t, zktest.Servers(t))
	const sessionTimeout = 2 * time.Second
	p := startZkr(t, nil, registerArgs(t, proxy, base, []string{"--session-timeout", sessionTimeout.String()}, "sleep", "60")...)
	d := registry(t, base)
	count := func() int {
		insts, err := d.Instances(ctxOf(t), "web")
		require.NoError(t, err)
		return len(insts)
	}
	require.Eventually(t, func() bool { return count() == 1 }, time.Minute, 20*time.Millisecond,
		"never registered: %s", p.stderr)
	p.signal(t, syscall.SIGKILL)
	p.wait(t, time.Minute)
	killed := time.Now()
	require.Eventually(t, func() bool { return count() == 0 }, time.Minute, 20*time.Millisecond)
	t.Logf("gone %v after SIGKILL", time.Since(killed))
	// The server expires a session within its timeout and one tick more;
	// the bound is wide for a loaded machine, and far below the 60 s that a
	// --session-timeout left unused would give.
	assert.Less(t, time.Since(killed), 5*sessionTimeout, "the instance outlived its session")
}

// Bad input is refused with status 2 before zkr waits for a session: the
// server here is never reachable, and --connect-timeout is long.
func TestRegister_BadInputFailsWithStatus2BeforeConnecting(t *testing.T) {
	t.Parallel()
	// reg is `zkr register` with args, a good --address and --port, and
	// a COMMAND.
	reg := func(args ...string) []string {
		return append(append([]string{"register"}, args...), "--address", "h", "--port", "80", "--", "true")
	}
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"register"}, "register takes 1 argument(s), got 0"},
		{reg(), "register takes 1 argument(s), got 0"},
		{[]string{"register", "web", "--port", "80", "--", "true"}, "needs --address"},
		{[]string{"register", "web", "--address", "h", "--", "true"}, "needs --port"},
		{[]string{"register", "web", "--address", "h", "--port", "http", "--", "true"}, "-port"},
		{[]string{"register", "web", "--address", "h", "--port", "65536", "--", "true"}, "-port"},
		{[]string{"register", "web", "--address", "h", "--port", "80", "--ssl-port", "-1", "--", "true"}, "-ssl-port"},
		{reg("web", "--payload", `{"a":`), "--payload takes a JSON object"},
		{reg("web", "--payload", `[1]`), "--payload takes a JSON object"},
		{reg("web", "--uri-spec", "{scheme"), "--uri-spec"},
		{reg("web", "--base", "services"), "--base"},
		{reg("web/x"), "web/x"},
		{reg("web", "--id", ".."), "--id"},
	} {
		usageFails(t, tc.args, tc.says)
	}
}
