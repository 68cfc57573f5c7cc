package zktesting_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// integration skips a test that runs a server under -short.
func integration(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a ZooKeeper server; skipped under -short")
	}
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// start starts a server closed at the end of the test, whose log's tail
// the test's output shows if it fails.
func start(t *testing.T, opts ...zktesting.Option) *zktesting.Server {
	t.Helper()
	return zktesting.NewServer(t, opts...)
}

// dial opens a session on addr, closed at the end of the test.
func dial(t *testing.T, addr string, timeout time.Duration) *zk.Conn {
	t.Helper()
	said := &clientLog{}
	conn, _, err := zk.Connect([]string{addr}, timeout, zk.WithLogInfo(false), zk.WithLogger(said),
		zk.WithDialer(zktest.BoundedHandshake(timeout/3)))
	require.NoError(t, err)
	t.Cleanup(conn.Close)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("what the client said:\n%s", said)
		}
	})
	awaitSession(t, conn)
	return conn
}

// clientLog keeps what go-zookeeper logs, to be shown if the test fails.
type clientLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *clientLog) Printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, time.Now().Format(time.StampMilli)+" "+fmt.Sprintf(format, args...))
}

func (l *clientLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// awaitSession waits 30 s for conn to have a session. It asks conn's
// state rather than reading its events: go-zookeeper drops events once
// their channel's six places are full, as a slow restart's reconnect
// attempts fill it.
func awaitSession(t *testing.T, conn *zk.Conn) {
	t.Helper()
	require.Eventually(t, func() bool { return conn.State() == zk.StateHasSession }, 30*time.Second, 10*time.Millisecond,
		"no session within 30s")
}

func TestStart_ServesOnLoopbackWithTestSettings(t *testing.T) {
	t.Parallel()
	integration(t)
	s := start(t)
	assert.True(t, strings.HasPrefix(s.Addr(), "127.0.0.1:"), s.Addr())
	assert.Positive(t, s.PID())

	ruok, err := zktesting.FourLetterWord(testContext(t), s.Addr(), "ruok")
	require.NoError(t, err)
	assert.Equal(t, "imok", ruok)
	stats, err := zktesting.Mntr(testContext(t), s.Addr())
	require.NoError(t, err)
	assert.Equal(t, "standalone", stats["zk_server_state"])
	conf, err := zktesting.FourLetterWord(testContext(t), s.Addr(), "conf")
	require.NoError(t, err)
	assert.Contains(t, conf, "tickTime=200")
	assert.Contains(t, conf, "minSessionTimeout=400")

	conn := dial(t, s.Addr(), 5*time.Second)
	_, err = conn.CreateTTL("/ttl", []byte("x"), zk.FlagTTL, zk.WorldACL(zk.PermAll), time.Minute)
	assert.NoError(t, err, "TTL nodes are enabled")
}

func TestServer_RestartKeepsDataAndLiveSessions(t *testing.T) {
	t.Parallel()
	integration(t)
	// A session long enough to outlive a restart slowed by a busy machine:
	// the default limit, 20 ticks, is 4 s.
	s := start(t, zktesting.WithMaxSessionTimeout(30*time.Second))
	conn := dial(t, s.Addr(), 30*time.Second)
	_, err := conn.Create("/eph", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	id, pid := conn.SessionID(), s.PID()

	require.NoError(t, s.Restart(testContext(t)))
	assert.NotEqual(t, pid, s.PID())
	awaitSession(t, conn)
	assert.Equal(t, id, conn.SessionID())
	ok, stat, err := conn.Exists("/eph")
	require.NoError(t, err)
	require.True(t, ok, "the ephemeral node of a live session survives")
	assert.Equal(t, id, stat.EphemeralOwner)
}

// A lower maxSessionTimeout takes effect at the restart: the session that
// lives through it is granted the new limit on its reconnect.
func TestServer_SetMaxSessionTimeoutTakesEffectAtTheRestart(t *testing.T) {
	t.Parallel()
	integration(t)
	s := start(t, zktesting.WithMaxSessionTimeout(20*time.Second))
	conn := dial(t, s.Addr(), 20*time.Second)
	id := conn.SessionID()
	assert.ErrorIs(t, s.SetMaxSessionTimeout(300*time.Millisecond), zktesting.ErrInvalidSessionTimeout, "under two ticks")

	require.NoError(t, s.SetMaxSessionTimeout(4*time.Second))
	require.NoError(t, s.Restart(testContext(t)))
	awaitSession(t, conn)
	assert.Equal(t, id, conn.SessionID(), "the session lived through the restart")
	cfg, err := os.ReadFile(filepath.Join(s.Dir(), "zoo.cfg"))
	require.NoError(t, err)
	assert.Contains(t, string(cfg), "maxSessionTimeout=4000\n")
}

func TestServer_StopAndCloseAreIdempotent(t *testing.T) {
	t.Parallel()
	integration(t)
	s, err := zktesting.Start(testContext(t))
	require.NoError(t, err)
	dir := s.Dir()

	require.NoError(t, s.Stop())
	require.NoError(t, s.Stop())
	assert.Zero(t, s.PID())
	_, err = zktesting.FourLetterWord(testContext(t), s.Addr(), "ruok")
	assert.Error(t, err, "nothing listens after Stop")

	require.NoError(t, s.Close())
	require.NoError(t, s.Close())
	assert.NoDirExists(t, dir)
	err = s.Restart(testContext(t))
	assert.ErrorIs(t, err, zktesting.ErrClosed)
	assert.ErrorIs(t, err, zkrecipes.ErrClosed, "the library's one ErrClosed")
}

func TestStart_WithDirKeepsTheDirectory(t *testing.T) {
	t.Parallel()
	integration(t)
	dir := t.TempDir()
	s, err := zktesting.Start(testContext(t), zktesting.WithDir(dir), zktesting.WithTickTime(100*time.Millisecond))
	require.NoError(t, err)
	require.NoError(t, s.Close())
	assert.FileExists(t, filepath.Join(dir, "zookeeper.log"))
	cfg, err := os.ReadFile(filepath.Join(dir, "zoo.cfg"))
	require.NoError(t, err)
	assert.Contains(t, string(cfg), "tickTime=100\n")
}

func TestStart_WithPortListensThere(t *testing.T) {
	t.Parallel()
	integration(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	s := start(t, zktesting.WithPort(port))
	assert.Equal(t, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), s.Addr())
}

func TestStart_FailureCarriesTheLogTail(t *testing.T) {
	integration(t)
	_, err := zktesting.Start(testContext(t), zktesting.WithJavaOpts("-Xmx1k"))
	require.ErrorIs(t, err, zktesting.ErrExited)
	assert.Contains(t, err.Error(), "heap")
}

func TestStart_RejectsBadInput(t *testing.T) {
	ctx := context.Background()
	_, err := zktesting.Start(ctx, zktesting.WithTickTime(-time.Second))
	assert.ErrorIs(t, err, zktesting.ErrInvalidTickTime)
	_, err = zktesting.Start(ctx, zktesting.WithTickTime(0))
	assert.ErrorIs(t, err, zktesting.ErrInvalidTickTime)
	_, err = zktesting.Start(ctx, zktesting.WithTickTime(time.Second), zktesting.WithMaxSessionTimeout(time.Second))
	assert.ErrorIs(t, err, zktesting.ErrInvalidSessionTimeout)
	_, err = zktesting.StartEnsemble(ctx, 0)
	assert.ErrorIs(t, err, zktesting.ErrInvalidSize)
	_, err = zktesting.StartEnsemble(ctx, 3, zktesting.WithTickTime(-1))
	assert.ErrorIs(t, err, zktesting.ErrInvalidTickTime)
	_, err = zktesting.Start(ctx, zktesting.WithJar(filepath.Join(t.TempDir(), "missing.jar")))
	assert.ErrorIs(t, err, zktesting.ErrNoZooKeeper)
	_, err = zktesting.Start(ctx, zktesting.WithPort(70000))
	assert.ErrorIs(t, err, zktesting.ErrInvalidPort)
	_, err = zktesting.StartEnsemble(ctx, 3, zktesting.WithPort(2181))
	assert.ErrorIs(t, err, zktesting.ErrInvalidPort)
	_, err = zktesting.FourLetterWord(ctx, "127.0.0.1:1", "toolong")
	assert.Error(t, err)
}

func TestStart_FailsWithoutJava(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := zktesting.Start(context.Background())
	assert.ErrorIs(t, err, zktesting.ErrNoJava)
}

// quiet drops go-zookeeper's log lines.
type quiet struct{}

func (quiet) Printf(string, ...any) {}

func TestStart_FailsWhenThePortIsTaken(t *testing.T) {
	t.Parallel()
	integration(t)
	first := start(t)
	_, port, err := net.SplitHostPort(first.Addr())
	require.NoError(t, err)
	p, err := strconv.Atoi(port)
	require.NoError(t, err)
	second, err := zktesting.Start(testContext(t), zktesting.WithPort(p))
	if err == nil {
		_ = second.Close()
	}
	require.ErrorIs(t, err, zktesting.ErrPortInUse, "a second server on a taken port")
	assert.NotZero(t, first.PID(), "the first server still runs")
}

// failedTB is a test that has failed, whose cleanups run when run is
// called and whose logs are kept.
type failedTB struct {
	testing.TB
	cleanups []func()
	logs     []string
}

func (f *failedTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *failedTB) Failed() bool      { return true }
func (f *failedTB) Logf(format string, args ...any) {
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}

// run runs the cleanups, last registered first, as the testing package does.
func (f *failedTB) run() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

func TestNewServer_AFailedTestShowsTheServersLogBeforeItGoes(t *testing.T) {
	t.Parallel()
	integration(t)
	tb := &failedTB{TB: t}
	s := zktesting.NewServer(tb)
	logPath := filepath.Join(s.Dir(), "zookeeper.log")
	require.NoError(t, os.WriteFile(logPath, []byte("what the server said\n"), 0o644))
	tb.run()
	require.Len(t, tb.logs, 1)
	assert.Contains(t, tb.logs[0], s.Addr())
	assert.Contains(t, tb.logs[0], "what the server said")
	assert.NoDirExists(t, s.Dir(), "removed after its log was shown")
}
