package main

import (
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// lines returns zkr's lines of output so far.
func (p *zkrProcess) lines() []string {
	out := strings.TrimSuffix(p.stdout.String(), "\n")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

// waitLines waits until zkr has printed n lines and returns them.
func (p *zkrProcess) waitLines(t *testing.T, n int) []string {
	t.Helper()
	require.Eventually(t, func() bool { return len(p.lines()) >= n || !p.running() }, time.Minute, 10*time.Millisecond,
		"%d lines; stdout:\n%s\nstderr:\n%s", n, p.stdout, p.stderr)
	lines := p.lines()
	require.Len(t, lines, n, "stdout:\n%s\nstderr:\n%s", p.stdout, p.stderr)
	return lines
}

// startWatch starts `zkr watch` of path and waits for its "initialized"
// after the initial lines.
func startWatch(t *testing.T, path string, initial int, flags ...string) *zkrProcess {
	t.Helper()
	args := append(append([]string{"watch", "--servers", zktest.Servers(t)}, flags...), path)
	p := startZkr(t, nil, args...)
	lines := p.waitLines(t, initial+1)
	require.Contains(t, lines[initial], "initialized", "stdout:\n%s", p.stdout)
	return p
}

func TestWatch_PrintsTheTreeThenEachWriteInOrder(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	c, ctx := client(t), ctxOf(t)
	_, err := c.Create(ctx, path, []byte("root"), framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	_, err = c.Create(ctx, path+"/a", []byte("one"), framework.Persistent)
	require.NoError(t, err)

	p := startWatch(t, path, 2)
	_, err = c.Create(ctx, path+"/b", []byte{0xff, 0x00}, framework.Persistent)
	require.NoError(t, err)
	p.waitLines(t, 4)
	_, err = c.Set(ctx, path+"/a", []byte("uno"), -1)
	require.NoError(t, err)
	p.waitLines(t, 5)
	require.NoError(t, c.Delete(ctx, path+"/b", -1))
	p.waitLines(t, 6)
	_, err = c.Set(ctx, path, nil, -1)
	require.NoError(t, err)

	assert.Equal(t, []string{
		"created " + path + ` "root"`,
		"created " + path + `/a "one"`,
		"initialized",
		"created " + path + "/b 0xff00",
		"changed " + path + `/a "uno"`,
		"deleted " + path + "/b",
		"changed " + path + " -",
	}, p.waitLines(t, 7))
	p.signal(t, syscall.SIGINT)
	assert.Equal(t, 0, p.wait(t, time.Minute), "SIGINT ends zkr watch: %s", p.stderr)
	assert.Empty(t, p.stderr.String())
}

func TestWatch_JSONLinesParse(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	c, ctx := client(t), ctxOf(t)
	_, err := c.Create(ctx, path+"/text", []byte("héllo"), framework.Persistent, framework.WithParents())
	require.NoError(t, err)

	p := startWatch(t, path, 2, "--json")
	_, err = c.Create(ctx, path+"/bin", []byte{0xff, 0xfe}, framework.Persistent)
	require.NoError(t, err)
	p.waitLines(t, 4)
	_, err = c.Set(ctx, path+"/text", []byte("again"), -1)
	require.NoError(t, err)
	p.waitLines(t, 5)
	require.NoError(t, c.Delete(ctx, path+"/bin", -1))

	var events []map[string]any
	for _, line := range p.waitLines(t, 6) {
		var ev map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &ev), line)
		events = append(events, ev)
	}
	assert.Equal(t, map[string]any{"type": "created", "path": path, "data": "", "version": 0.0, "mzxid": events[0]["mzxid"]}, events[0])
	assert.Equal(t, "created", events[1]["type"])
	assert.Equal(t, path+"/text", events[1]["path"])
	assert.Equal(t, "héllo", events[1]["data"])
	assert.Equal(t, map[string]any{"type": "initialized"}, events[2])
	assert.Equal(t, path+"/bin", events[3]["path"])
	assert.Equal(t, "//4=", events[3]["data_b64"], "data that is not UTF-8 is base64")
	assert.NotContains(t, events[3], "data")
	assert.Equal(t, "changed", events[4]["type"])
	assert.Equal(t, "again", events[4]["data"])
	assert.Equal(t, 1.0, events[4]["version"])
	assert.Equal(t, 0.0, events[4]["old_version"])
	assert.Greater(t, events[4]["mzxid"], events[1]["mzxid"])
	assert.Equal(t, "deleted", events[5]["type"])
	assert.Equal(t, path+"/bin", events[5]["path"])
	assert.Equal(t, 0.0, events[5]["version"], "a deleted node's last version")
	assert.NotContains(t, events[5], "data_b64")
	p.signal(t, syscall.SIGTERM)
	assert.Equal(t, 0, p.wait(t, time.Minute), "SIGTERM ends zkr watch: %s", p.stderr)
}

func TestWatch_DepthAndNoData(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	c, ctx := client(t), ctxOf(t)
	_, err := c.Create(ctx, path+"/a/deep", []byte("below"), framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	_, err = c.Set(ctx, path+"/a", []byte("child"), -1)
	require.NoError(t, err)

	p := startWatch(t, path, 2, "--depth", "1", "--no-data")
	_, err = c.Create(ctx, path+"/a/deeper", nil, framework.Persistent)
	require.NoError(t, err)
	_, err = c.Set(ctx, path+"/a", []byte("changed"), -1)
	require.NoError(t, err)
	assert.Equal(t, []string{"created " + path, "created " + path + "/a", "initialized", "changed " + path + "/a"},
		p.waitLines(t, 4), "nothing below depth 1, no data")
	p.signal(t, syscall.SIGINT)
	assert.Equal(t, 0, p.wait(t, time.Minute), p.stderr.String())

	p = startWatch(t, path, 1, "--depth", "0", "--json", "--no-data")
	var ev map[string]any
	require.NoError(t, json.Unmarshal([]byte(p.lines()[0]), &ev))
	assert.Equal(t, map[string]any{"type": "created", "path": path, "version": 0.0, "mzxid": ev["mzxid"]}, ev, "no data under --no-data")
	p.signal(t, syscall.SIGINT)
	assert.Equal(t, 0, p.wait(t, time.Minute), p.stderr.String())
}

// Bad input is refused with status 2 before zkr waits for a session: the
// server here is never reachable, and --connect-timeout is long.
func TestWatch_BadInputFailsWithStatus2BeforeConnecting(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"watch"}, "watch takes 1 argument(s), got 0"},
		{[]string{"watch", "/a", "/b"}, "watch takes 1 argument(s), got 2"},
		{[]string{"watch", "relative"}, "relative"},
		{[]string{"watch", "/a//b"}, "/a//b"},
		{[]string{"watch", "--depth", "-1", "/a"}, "-depth"},
		{[]string{"watch", "--depth", "deep", "/a"}, "-depth"},
	} {
		usageFails(t, tc.args, tc.says)
	}
}

// A path that does not exist yet is watched: its creation is an event.
func TestWatch_ANodeThatComesLater(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	p := startWatch(t, path, 0)
	_, err := client(t).Create(ctxOf(t), path, []byte("late"), framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	assert.Equal(t, []string{"initialized", "created " + path + ` "late"`}, p.waitLines(t, 2))
	p.signal(t, syscall.SIGINT)
	assert.Equal(t, 0, p.wait(t, time.Minute), p.stderr.String())
}

// SIGINT and SIGTERM end zkr watch with status 0, and it closes its
// cache: the watch is removed from the server before the session ends.
func TestWatch_InterruptExits0AndClosesTheCache(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			path := zktest.UniquePath(t)
			proxy := zktest.NewProxy(t, zktest.Servers(t))
			p := startZkr(t, nil, "watch", "--servers", proxy.Addr(), path)
			require.Equal(t, []string{"initialized"}, p.waitLines(t, 1))
			p.signal(t, sig)
			assert.Equal(t, 0, p.wait(t, time.Minute), p.stderr.String())
			assert.Empty(t, p.stderr.String())
			// The cache's watch goes with the session: the client lets a
			// closed watch linger a second, and closes first.
			assert.Equal(t, int64(1), proxy.Requests(zktest.OpCloseSession), "the session was closed")
		})
	}
}
