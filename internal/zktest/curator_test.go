package zktest

import (
	pathpkg "path"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const curatorUUID = `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`

var (
	curatorLockNode  = regexp.MustCompile(`^_c_` + curatorUUID + `-lock-[0-9]{10}$`)
	curatorLeaseNode = regexp.MustCompile(`^_c_` + curatorUUID + `-lease-[0-9]{10}$`)
)

type curatorResult struct {
	ok  bool
	err error
}

func TestCurator_SecondMutexHandleWaitsUntilRelease(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	c := StartCurator(t, Servers(t))
	path := UniquePath(t)

	ok, err := c.MutexAcquire(ctx, "a", path, -1)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = c.MutexAcquire(ctx, "b", path, 300*time.Millisecond)
	require.NoError(t, err)
	assert.False(t, ok, "b acquired a mutex that a holds")

	got := make(chan curatorResult, 1)
	go func() { // ends when b's untimed acquire answers, at the latest when the peer closes
		ok, err := c.MutexAcquire(ctx, "b", path, -1)
		got <- curatorResult{ok, err}
	}()
	require.Eventually(t, func() bool {
		nodes, err := c.MutexParticipants(ctx, path)
		return err == nil && len(nodes) == 2
	}, 10*time.Second, 20*time.Millisecond, "b never queued behind a")
	nodes, err := c.MutexParticipants(ctx, path)
	require.NoError(t, err)
	require.Len(t, nodes, 2)
	for _, n := range nodes {
		assert.Equal(t, path, pathpkg.Dir(n))
		assert.Regexp(t, curatorLockNode, pathpkg.Base(n))
	}
	select {
	case r := <-got:
		t.Fatalf("b's acquire returned while a holds the mutex: %+v", r)
	default:
	}

	require.NoError(t, c.MutexRelease(ctx, "a"))
	select {
	case r := <-got:
		require.NoError(t, r.err)
		assert.True(t, r.ok)
	case <-time.After(10 * time.Second):
		t.Fatal("b did not acquire within 10 s of a's release")
	}
	require.NoError(t, c.MutexRelease(ctx, "b"))
	nodes, err = c.MutexParticipants(ctx, path)
	require.NoError(t, err)
	assert.Empty(t, nodes)
}

func TestCurator_SemaphoreThirdHandleTimesOut(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	c := StartCurator(t, Servers(t))
	path := UniquePath(t)

	for _, h := range []string{"s1", "s2"} {
		leases, ok, err := c.SemAcquire(ctx, h, path, 2, 1, -1)
		require.NoError(t, err)
		require.True(t, ok, h)
		require.Len(t, leases, 1)
		assert.Regexp(t, curatorLeaseNode, leases[0])
	}
	leases, ok, err := c.SemAcquire(ctx, "s3", path, 2, 1, 300*time.Millisecond)
	require.NoError(t, err)
	assert.False(t, ok, "a third lease out of 2")
	assert.Empty(t, leases)
	nodes, err := c.SemParticipants(ctx, path, 2)
	require.NoError(t, err)
	assert.Len(t, nodes, 2)

	require.NoError(t, c.SemRelease(ctx, "s1"))
	_, ok, err = c.SemAcquire(ctx, "s3", path, 2, 1, 10*time.Second)
	require.NoError(t, err)
	assert.True(t, ok, "s3 got no lease after s1 returned its")
}

func TestCurator_CountedSemaphoreFollowsSharedCount(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	c := StartCurator(t, Servers(t))
	path := UniquePath(t)
	countPath := path + "-count"

	require.NoError(t, c.CountSet(ctx, countPath, 1))
	_, ok, err := c.SemAcquireCounted(ctx, "s1", path, countPath, 1, -1)
	require.NoError(t, err)
	require.True(t, ok)
	_, ok, err = c.SemAcquireCounted(ctx, "s2", path, countPath, 1, 300*time.Millisecond)
	require.NoError(t, err)
	assert.False(t, ok, "a second lease while the count is 1")

	require.NoError(t, c.CountSet(ctx, countPath, 2))
	_, ok, err = c.SemAcquireCounted(ctx, "s2", path, countPath, 1, 10*time.Second)
	require.NoError(t, err)
	assert.True(t, ok, "no second lease after the count went to 2")
}

func TestCurator_CountRoundTrips(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	c := StartCurator(t, Servers(t))
	path := UniquePath(t)

	n, err := c.CountGet(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, 0, n, "seed of a new count")
	require.NoError(t, c.CountSet(ctx, path, 7)) // node version 0 -> 1
	n, err = c.CountGet(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, 7, n)

	set, err := c.CountTrySet(ctx, path, 9, 1)
	require.NoError(t, err)
	assert.True(t, set, "trySet with the current version")
	set, err = c.CountTrySet(ctx, path, 10, 1)
	require.NoError(t, err)
	assert.False(t, set, "trySet with a stale version")
	n, err = c.CountGet(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, 9, n)
}

func TestCurator_ReadersShareAndWriterExcludes(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	c := StartCurator(t, Servers(t))
	path := UniquePath(t)

	for _, h := range []string{"r1", "r2"} {
		ok, err := c.RWAcquire(ctx, h, path, false, time.Second)
		require.NoError(t, err)
		require.True(t, ok, h)
	}
	readers, err := c.RWParticipants(ctx, path, false)
	require.NoError(t, err)
	assert.Len(t, readers, 2)
	for _, r := range readers {
		assert.Regexp(t, "^"+path+"/_c_.*-__READ__[0-9]{10}$", r)
	}
	writers, err := c.RWParticipants(ctx, path, true)
	require.NoError(t, err)
	assert.Empty(t, writers, "each kind lists its own nodes")
	ok, err := c.RWAcquire(ctx, "w", path, true, 300*time.Millisecond)
	require.NoError(t, err)
	assert.False(t, ok, "writer acquired while readers hold")

	require.NoError(t, c.RWRelease(ctx, "r1", false))
	require.NoError(t, c.RWRelease(ctx, "r2", false))
	ok, err = c.RWAcquire(ctx, "w", path, true, 10*time.Second)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = c.RWAcquire(ctx, "r1", path, false, 300*time.Millisecond)
	require.NoError(t, err)
	assert.False(t, ok, "reader acquired while the writer holds")
	require.NoError(t, c.RWRelease(ctx, "w", true))
}

func TestCurator_RevokeMarksTheLockNode(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	servers := Servers(t)
	c := StartCurator(t, servers)
	path := UniquePath(t)

	ok, err := c.MutexAcquire(ctx, "a", path, -1)
	require.NoError(t, err)
	require.True(t, ok)
	nodes, err := c.MutexParticipants(ctx, path)
	require.NoError(t, err)
	require.Len(t, nodes, 1)
	require.NoError(t, c.Revoke(ctx, nodes[0]))

	conn, _, err := zk.Connect(strings.Split(servers, ","), 10*time.Second, zk.WithLogInfo(false))
	require.NoError(t, err)
	defer conn.Close()
	data, _, err := conn.Get(nodes[0])
	require.NoError(t, err)
	assert.Equal(t, "__REVOKE__", string(data))
}

func TestCurator_ErrorsWrapErrCuratorCommand(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	c := StartCurator(t, Servers(t))

	_, err := c.Do(ctx, "no-such-verb")
	require.ErrorIs(t, err, ErrCuratorCommand)
	require.ErrorIs(t, c.MutexRelease(ctx, "never-acquired"), ErrCuratorCommand)
	_, err = c.Do(ctx, "mutex-acquire", "a", "/has space", "-1")
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrCuratorCommand, "bad arguments must fail before reaching the peer")
}

// The peer's System.nanoTime and Monotonic read one clock: every reading
// the peer echoes lies between two readings of the Go side around the
// command, and a stamped acquire's instants lie within its round trip.
func TestCurator_ClockIsTheGoSidesMonotonicClock(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	c := StartCurator(t, Servers(t))
	for range 20 {
		before := Monotonic()
		peer, err := c.Clock(ctx)
		after := Monotonic()
		require.NoError(t, err)
		require.LessOrEqual(t, before, peer, "the peer's clock reads earlier than the Go side did before asking")
		require.LessOrEqual(t, peer, after, "the peer's clock reads later than the Go side did after its answer")
	}
	path := UniquePath(t)
	before := Monotonic()
	ok, acquired, err := c.MutexAcquireAt(ctx, "a", path, -1)
	require.NoError(t, err)
	require.True(t, ok)
	released, err := c.MutexReleaseAt(ctx, "a")
	after := Monotonic()
	require.NoError(t, err)
	assert.LessOrEqual(t, before, acquired)
	assert.Less(t, acquired, released)
	assert.LessOrEqual(t, released, after)
}

func TestCurator_MultiLockTakesEveryPartOrNone(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	c := StartCurator(t, Servers(t))
	zc := connect(t, Servers(t), 10*time.Second)
	base := UniquePath(t)
	first, second := base+"/first", base+"/second"

	ok, err := c.RWAcquire(ctx, "b", second, true, -1)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = c.MultiAcquire(ctx, "a", 300*time.Millisecond, first, "write:"+second)
	require.NoError(t, err)
	assert.False(t, ok, "a took a multi-lock whose second part b holds")
	kids, _, err := zc.Children(first)
	if err != zk.ErrNoNode {
		require.NoError(t, err)
	}
	assert.Empty(t, kids, "a's timed-out multi-lock left its first part held")

	require.NoError(t, c.RWRelease(ctx, "b", true))
	ok, err = c.MultiAcquire(ctx, "a", 10*time.Second, first, "write:"+second)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = c.MutexAcquire(ctx, "b", first, 300*time.Millisecond)
	require.NoError(t, err)
	assert.False(t, ok, "b took a part of a's multi-lock")
	require.NoError(t, c.MultiRelease(ctx, "a"))
	ok, err = c.MutexAcquire(ctx, "b", first, 10*time.Second)
	require.NoError(t, err)
	assert.True(t, ok, "the multi-lock's release left its first part held")
	require.NoError(t, c.MutexRelease(ctx, "b"))
}

func TestCurator_LockNodeIsTheHeldNodeOfThePeersSession(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	servers := Servers(t)
	c := StartCurator(t, servers)
	conn := connect(t, servers, 10*time.Second)
	mutexPath, rwPath := UniquePath(t)+"/mutex", UniquePath(t)+"/rw"

	node, _, err := c.LockNode(ctx, "m", "mutex")
	require.ErrorIs(t, err, ErrCuratorCommand, "a handle that never acquired is unknown")
	assert.Empty(t, node)

	ok, err := c.MutexAcquire(ctx, "m", mutexPath, -1)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = c.RWAcquire(ctx, "rw", rwPath, true, -1)
	require.NoError(t, err)
	require.True(t, ok)
	for _, held := range []struct{ handle, kind, dir, name string }{
		{"m", "mutex", mutexPath, "-lock-"}, {"rw", "write", rwPath, "__WRIT__"},
	} {
		node, session, err := c.LockNode(ctx, held.handle, held.kind)
		require.NoError(t, err)
		assert.Equal(t, held.dir, pathpkg.Dir(node))
		assert.Contains(t, pathpkg.Base(node), held.name)
		_, stat, err := conn.Get(node)
		require.NoError(t, err)
		assert.Equal(t, stat.EphemeralOwner, session, "the held node is an ephemeral of the peer's session")
	}

	require.NoError(t, c.MutexRelease(ctx, "m"))
	node, session, err := c.LockNode(ctx, "m", "mutex")
	require.NoError(t, err)
	assert.Empty(t, node, "a released handle holds no node")
	assert.NotZero(t, session)
}
