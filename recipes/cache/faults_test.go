package cache_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
)

// awayAndBack partitions the client until it is suspended, runs meanwhile
// through another client, and lets it back in on a new connection.
func awayAndBack(t *testing.T, proxy *zktest.Proxy, c *framework.Client, meanwhile func()) {
	t.Helper()
	suspended := make(chan struct{}, 1)
	remove := c.AddListener(func(sc framework.StateChange) {
		if sc.State == framework.Suspended {
			select {
			case suspended <- struct{}{}:
			default:
			}
		}
	})
	defer remove()
	proxy.Pause()
	proxy.Cut() // and its new connections hear nothing until Resume
	select {
	case <-suspended:
	case <-time.After(20 * time.Second):
		t.Fatal("the client was not suspended")
	}
	meanwhile()
	proxy.Resume()
	proxy.Cut()
}

// A reconnect reads what changed while the client was away, not the tree.
func TestCache_AReconnectReadsWhatChangedNotTheTree(t *testing.T) {
	serverKinds(t, func(t *testing.T, proxy *zktest.Proxy) {
		c := connect(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second))
		other := connect(t, zktest.Servers(t))
		ctx := testContext(t)
		root := zktest.UniquePath(t)
		makeTree(t, c, root, 12) // 157 nodes
		cc, seq := started(t, c, root)
		var before int64
		awayAndBack(t, proxy, c, func() {
			for i := range 5 {
				_, err := other.Set(ctx, fmt.Sprintf("%s/n%02d/m%02d", root, i, i), []byte("while away"), -1)
				require.NoError(t, err)
			}
			before = requests(proxy)
		})
		converges(t, other, cc, seq, -1)
		assert.Equal(t, 5, seq.Count(cache.Changed))
		assert.Zero(t, seq.Count(cache.Deleted))
		used := requests(proxy) - before
		t.Logf("%d requests after the reconnect", used)
		assert.LessOrEqual(t, used, int64(15), "reads in proportion to the 5 changes, not to the 157 nodes")
	})
}

// After an expiry the cache reads what changed and tells the differences:
// no wipe and reload.
func TestCache_ASessionExpiryEmitsTheDifferencesNotAReload(t *testing.T) {
	serverKinds(t, func(t *testing.T, proxy *zktest.Proxy) {
		const timeout = 2 * time.Second
		c := connect(t, proxy.Addr(), framework.WithSessionTimeout(timeout))
		other := connect(t, zktest.Servers(t))
		ctx := testContext(t)
		root := zktest.UniquePath(t)
		n := makeTree(t, c, root, 4)
		cc, seq := started(t, c, root)
		lost := make(chan struct{}, 1)
		c.AddListener(func(sc framework.StateChange) {
			if sc.State == framework.Lost {
				select {
				case lost <- struct{}{}:
				default:
				}
			}
		})
		proxy.Pause()
		select {
		case <-lost:
		case <-time.After(20 * time.Second):
			t.Fatal("the session was not lost")
		}
		time.Sleep(timeout) // the server expires it too
		_, err := other.Set(ctx, root+"/n00", []byte("changed"), -1)
		require.NoError(t, err)
		require.NoError(t, other.Delete(ctx, root+"/n01/m03", -1))
		_, err = other.Create(ctx, root+"/n02/new", nil, framework.Persistent)
		require.NoError(t, err)
		_, err = other.Create(ctx, root+"/n02/new/below", []byte("b"), framework.Persistent)
		require.NoError(t, err)
		proxy.Resume()
		converges(t, other, cc, seq, -1)
		assert.Equal(t, n+2, seq.Count(cache.Created), "the load's, and the two new nodes")
		assert.Equal(t, 1, seq.Count(cache.Changed))
		assert.Equal(t, 1, seq.Count(cache.Deleted))
	})
}

// A server that can no longer keep the recursive watch after a reconnect
// (a rolling downgrade) moves the cache to one-shot watches.
func TestCache_ADowngradedServerMovesTheCacheToOneShotWatches(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	root := zktest.UniquePath(t)
	makeTree(t, c, root, 3)
	cc, seq := started(t, c, root)
	proxy.MakeOld()
	proxy.Cut()
	_, err := other.Set(ctx, root+"/n01", []byte("after the downgrade"), -1)
	require.NoError(t, err)
	converges(t, other, cc, seq, -1)
	_, err = other.Create(ctx, root+"/n01/later", nil, framework.Persistent)
	require.NoError(t, err)
	converges(t, other, cc, seq, -1)
	assert.NoError(t, cc.Err())
}

// Cuts every few hundred milliseconds under steady writes: the cache
// converges once they stop, and its events never break the rules.
func TestCache_ConvergesAfterCutsUnderWrites(t *testing.T) {
	serverKinds(t, func(t *testing.T, proxy *zktest.Proxy) {
		c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
		other := connect(t, zktest.Servers(t))
		ctx := testContext(t)
		root := zktest.UniquePath(t)
		makeTree(t, c, root, 4)
		cc, seq := started(t, c, root)
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				case <-time.After(150 * time.Millisecond):
					proxy.Cut()
				}
			}
		}()
		for i := range 200 {
			p := fmt.Sprintf("%s/n%02d/w%d", root, i%4, i%7)
			switch i % 3 {
			case 0:
				_, _ = other.Create(ctx, p, []byte(p), framework.Persistent)
			case 1:
				_, _ = other.Set(ctx, p, []byte(fmt.Sprint(i)), -1)
			case 2:
				_ = other.Delete(ctx, p, -1)
			}
			time.Sleep(5 * time.Millisecond)
		}
		close(stop)
		<-done
		converges(t, other, cc, seq, -1)
	})
}

// An ensemble's leader stops: the cache, connected to another member,
// follows the writes made meanwhile.
func TestCache_FollowsTheTreeThroughALeaderChange(t *testing.T) {
	e := zktest.NewEnsemble(t, 3)
	ctx := testContext(t)
	leader, err := e.Leader(ctx)
	require.NoError(t, err)
	follower := e.Addrs()[(leader+1)%3]
	c := connect(t, follower, framework.WithSessionTimeout(20*time.Second))
	other := connect(t, e.ConnectString(), framework.WithSessionTimeout(20*time.Second))
	root := zktest.UniquePath(t)
	makeTree(t, c, root, 3)
	cc, seq := started(t, c, root)
	require.NoError(t, e.StopMember(leader))
	assert.Eventually(t, func() bool {
		_, err := other.Set(ctx, root+"/n00", []byte("new leader"), -1)
		return err == nil
	}, 60*time.Second, 200*time.Millisecond)
	_, err = other.Create(ctx, root+"/n01/after", nil, framework.Persistent)
	require.NoError(t, err)
	converges(t, other, cc, seq, -1)
}
