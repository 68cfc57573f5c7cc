package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// inspectJSON runs `zkr inspect --json` and decodes its report.
func inspectJSON(t *testing.T, path string, flags ...string) Report {
	t.Helper()
	args := append([]string{"inspect", "--servers", zktest.Servers(t), "--json"}, flags...)
	code, stdout, stderr := runZkr(t, append(args, path)...)
	require.Equal(t, 0, code, stderr)
	var r Report
	require.NoError(t, json.Unmarshal([]byte(stdout), &r), stdout)
	return r
}

// names returns the node names of nodes.
func names(nodes []Node) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.Name
	}
	return out
}

// sessions returns the owner sessions of nodes.
func sessions(nodes []Node) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.Session
	}
	return out
}

// hexSession is a client's session id as inspect shows it.
func hexSession(c *framework.Client) string { return fmt.Sprintf("0x%x", c.Session().ID()) }

func TestInspect_JSONListsAMutexQueueInOrder(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	clients := []*framework.Client{client(t), client(t), client(t)}
	m0, err := mutex.New(clients[0], path, mutex.WithData([]byte("holder")))
	require.NoError(t, err)
	hold, err := m0.Acquire(ctxOf(t))
	require.NoError(t, err)
	for i, c := range clients[1:] {
		m, err := mutex.New(c, path, mutex.WithData([]byte{0xff, byte(i)}))
		require.NoError(t, err)
		// Ends when the holder releases at the end of the test and this
		// waiter has taken and released the lock, or the client closes.
		go func() {
			if h, err := m.Acquire(ctxOf(t)); err == nil {
				_ = h.Release(ctxOf(t))
			}
		}()
		require.Eventually(t, func() bool { return len(zktest.Children(t, clients[0], path)) == i+2 }, time.Minute, 10*time.Millisecond)
	}

	r := inspectJSON(t, path)
	assert.Equal(t, "mutex", r.Recipe)
	require.Len(t, r.Holders, 1)
	require.Len(t, r.Waiters, 2)
	assert.Equal(t, []string{hexSession(clients[0])}, sessions(r.Holders))
	assert.Equal(t, []string{hexSession(clients[1]), hexSession(clients[2])}, sessions(r.Waiters), "waiters in queue order")
	h := r.Holders[0]
	assert.Equal(t, hold.Node(), h.Path)
	assert.Equal(t, "holder", h.Data)
	assert.Equal(t, "lock", h.Kind)
	assert.Len(t, h.ProtectionID, 36)
	assert.Contains(t, h.Name, h.ProtectionID)
	assert.Equal(t, "", r.Waiters[0].Data, "binary data is not shown as text")
	assert.Equal(t, "ff00", r.Waiters[0].DataHex)
	assert.Less(t, r.Holders[0].Sequence, r.Waiters[0].Sequence)
	assert.Less(t, r.Waiters[0].Sequence, r.Waiters[1].Sequence)
	assert.Empty(t, r.Others)
	require.NoError(t, hold.Release(ctxOf(t)))
}

func TestInspect_JSONListsASemaphoresLeasesAndQueue(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	clients := []*framework.Client{client(t), client(t), client(t)}
	ctx := ctxOf(t)
	for _, c := range clients[:2] {
		s, err := semaphore.New(c, path, 2)
		require.NoError(t, err)
		l, err := s.Acquire(ctxOf(t))
		require.NoError(t, err)
		t.Cleanup(func() { _ = l.Release(ctx) })
	}
	s, err := semaphore.New(clients[2], path, 2)
	require.NoError(t, err)
	// Ends when a lease is released at the end of the test, or the client closes.
	go func() {
		if l, err := s.Acquire(ctxOf(t)); err == nil {
			_ = l.Release(ctxOf(t))
		}
	}()
	require.Eventually(t, func() bool { return len(zktest.Children(t, clients[0], path+"/leases")) == 3 },
		time.Minute, 10*time.Millisecond, "the third acquirer has its lease node and waits")

	r := inspectJSON(t, path, "--leases", "2")
	assert.Equal(t, "semaphore", r.Recipe)
	assert.Equal(t, 2, r.Max)
	assert.Equal(t, []string{hexSession(clients[0]), hexSession(clients[1])}, sessions(r.Holders))
	require.NotEmpty(t, r.Waiters)
	assert.Equal(t, "lease", r.Waiters[0].Kind)
	assert.Equal(t, hexSession(clients[2]), r.Waiters[0].Session, "the third lease waits")
	assert.Equal(t, "acquiring", r.Waiters[len(r.Waiters)-1].Role, "the third acquirer holds the guard")
}

func TestInspect_JSONJudgesAReadWriteQueueByNames(t *testing.T) {
	t.Parallel()
	markers := map[rune]string{'r': "__READ__", 'w': "__WRIT__"}
	for _, tc := range []struct {
		queue   string // the kinds of the nodes, in queue order
		holders int    // how many at the head hold
	}{
		{"wrwr", 1}, // a writer at the head excludes all
		{"rrwr", 2}, // readers before the first writer share
		{"rwr", 1},  // a reader behind a writer waits
	} {
		t.Run(tc.queue, func(t *testing.T) {
			path := zktest.UniquePath(t)
			var want []string
			for _, k := range tc.queue {
				c := client(t) // a session per node: no downgrade
				n, err := c.CreateProtected(ctxOf(t), path+"/"+markers[k], nil, framework.EphemeralSequential, framework.WithParents())
				require.NoError(t, err)
				want = append(want, n.Name)
			}
			r := inspectJSON(t, path)
			assert.Equal(t, "rwlock", r.Recipe)
			assert.Equal(t, want[:tc.holders], names(r.Holders))
			assert.Equal(t, want[tc.holders:], names(r.Waiters))
			for i, n := range append(r.Holders, r.Waiters...) {
				assert.Equal(t, map[rune]string{'r': "read", 'w': "write"}[rune(tc.queue[i])], n.Kind)
			}
		})
	}
}

func TestInspect_TableShowsAContendedLock(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	g := newGate(t)
	p := startZkr(t, nil, lockArgs(t, path, nil, g.argv("exit 0")...)...)
	require.Eventually(t, g.started, time.Minute, 20*time.Millisecond)
	w := startZkr(t, nil, lockArgs(t, path, nil, "true")...)
	c := client(t)
	require.Eventually(t, func() bool { return len(zktest.Children(t, c, path)) == 2 }, time.Minute, 10*time.Millisecond)

	code, stdout, stderr := runZkr(t, "inspect", "--servers", zktest.Servers(t), path)
	require.Equal(t, 0, code, stderr)
	t.Logf("zkr inspect %s:\n%s", path, stdout)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, 4)
	assert.Contains(t, lines[0], "mutex, 1 holding, 1 waiting")
	assert.Regexp(t, `^1 +holder +lock +0000000000 +0x[0-9a-f]+ .* "zkr .* sh -c`, lines[2])
	assert.Regexp(t, `^2 +waiter +lock +0000000001 +0x[0-9a-f]+ .* "zkr .*: true"$`, lines[3])
	g.open(t)
	assert.Equal(t, 0, p.wait(t, time.Minute))
	assert.Equal(t, 0, w.wait(t, time.Minute))

	code, stdout, _ = runZkr(t, "inspect", "--servers", zktest.Servers(t), path+"/none")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "no such node")
}

func TestInspect_WatchRedrawsOnChange(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	p := startZkr(t, nil, "inspect", "--servers", zktest.Servers(t), "--watch", "--json", path)
	require.Eventually(t, func() bool { return strings.Count(p.stdout.String(), "\n") == 1 }, time.Minute, 10*time.Millisecond)
	assert.Contains(t, p.stdout.String(), `"recipe":"none"`)
	m, err := mutex.New(client(t), path)
	require.NoError(t, err)
	hold, err := m.Acquire(ctxOf(t))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return strings.Contains(p.stdout.String(), `"recipe":"mutex"`) },
		time.Minute, 10*time.Millisecond, "a new look when the lock is taken")
	require.NoError(t, hold.Release(ctxOf(t)))
	p.signal(t, syscall.SIGINT)
	assert.Equal(t, 0, p.wait(t, time.Minute), "Ctrl-C ends --watch")
}

func TestInspect_JSONShowsTheLeaderOfALatchElection(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	ctx := ctxOf(t)
	observer := client(t)
	var latches []*leader.Latch
	for _, id := range []string{"a", "b"} {
		l, err := leader.NewLatch(client(t), path, leader.WithID(id))
		require.NoError(t, err)
		require.NoError(t, l.Start(ctx))
		t.Cleanup(func() { _ = l.Close(context.Background()) })
		latches = append(latches, l)
		require.Eventually(t, func() bool { return len(zktest.Children(t, observer, path)) == len(latches) },
			time.Minute, 10*time.Millisecond)
	}
	term, err := latches[0].Await(ctx)
	require.NoError(t, err)

	r := inspectJSON(t, path)
	assert.Equal(t, "latch", r.Recipe)
	require.Len(t, r.Holders, 1)
	require.Len(t, r.Waiters, 1)
	assert.Equal(t, term.Node(), r.Holders[0].Path)
	assert.Equal(t, "leader", r.Holders[0].Role)
	assert.Equal(t, "latch", r.Holders[0].Kind)
	assert.Equal(t, []string{"a", "b"}, []string{r.Holders[0].Data, r.Waiters[0].Data})
}

// --watch keeps a cache of the path: a change costs reads of what changed,
// not of every node; a change of data is one too; and a burst of changes
// is shown in few looks.
func TestInspect_WatchReadsOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	c, ctx := client(t), ctxOf(t)
	const n = 30
	for i := range n {
		_, err := c.Create(ctx, fmt.Sprintf("%s/_c_%08d-0000-0000-0000-000000000000-lock-%010d", path, i, i),
			[]byte("waiting"), framework.Persistent, framework.WithParents())
		require.NoError(t, err)
	}
	servers, requests := zktest.Counted(t)
	p := startZkr(t, nil, "inspect", "--servers", servers, "--watch", "--json", path)
	looks := func() []Report {
		var out []Report
		for _, line := range p.lines() {
			var r Report
			require.NoError(t, json.Unmarshal([]byte(line), &r), line)
			out = append(out, r)
		}
		return out
	}
	require.Eventually(t, func() bool { return len(looks()) == 1 }, time.Minute, 10*time.Millisecond, p.stderr)
	require.Len(t, append(looks()[0].Holders, looks()[0].Waiters...), n)
	before := requests()

	_, err := c.Create(ctx, fmt.Sprintf("%s/_c_%08d-0000-0000-0000-000000000000-lock-%010d", path, n, n),
		[]byte("waiting"), framework.Persistent)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(looks()) == 2 }, time.Minute, 10*time.Millisecond, p.stderr)
	assert.Len(t, looks()[1].Waiters, n)
	assert.Less(t, requests()-before, int64(5), "a new node is read alone, not the %d others", n)

	// The data of a node, not only the listing.
	first := fmt.Sprintf("%s/_c_%08d-0000-0000-0000-000000000000-lock-%010d", path, 0, 0)
	_, err = c.Set(ctx, first, []byte("holding"), -1)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(looks()) == 3 }, time.Minute, 10*time.Millisecond, p.stderr)
	assert.Equal(t, "holding", looks()[2].Holders[0].Data)

	// A burst of writes: a look per redrawDelay at most, not one per write.
	start := time.Now()
	for i := range 20 {
		_, err := c.Set(ctx, first, []byte(fmt.Sprintf("burst %d", i)), -1)
		require.NoError(t, err)
	}
	burst := time.Since(start)
	require.Eventually(t, func() bool { r := looks(); return r[len(r)-1].Holders[0].Data == "burst 19" },
		time.Minute, 10*time.Millisecond, p.stderr)
	time.Sleep(3 * redrawDelay)
	assert.LessOrEqual(t, len(looks())-3, int(burst/redrawDelay)+2, "looks for 20 writes in %v", burst)
	p.signal(t, syscall.SIGTERM)
	assert.Equal(t, 0, p.wait(t, time.Minute), p.stderr.String())
}
