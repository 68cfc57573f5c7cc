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
	"github.com/zkrecipes/zkrecipes/recipes/cache/cachetest"
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
	zktest.ServerKinds(t, func(t *testing.T, proxy *zktest.Proxy) {
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
	zktest.ServerKinds(t, func(t *testing.T, proxy *zktest.Proxy) {
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
	zktest.ServerKinds(t, func(t *testing.T, proxy *zktest.Proxy) {
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

// A multi-read that fails (here its connection is cut, as a reply too
// large for the client would close it) is tried again in smaller
// batches, so that no reply size can wedge the load.
func TestCache_AFailedReadIsTriedAgainInSmallerBatches(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	// No retry by the client: the cache sees the failure, as it would
	// once a too large reply had failed every try.
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second), framework.WithRetryPolicy(framework.NoRetry()))
	root := zktest.UniquePath(t)
	makeTree(t, c, root, 30) // 931 nodes: the last level is one batch of 900
	cc, err := cache.New(c, root)
	require.NoError(t, err)
	seq := cachetest.NewSequence(root)
	cc.AddListener(seq.Listener())
	const levels = 5 // root, its list, its children, their lists, the last level
	before := proxy.Requests(zktest.OpMultiRead)
	proxy.SetDelay(100 * time.Millisecond) // a window to cut the last level's read in
	require.NoError(t, cc.Start(testContext(t)))
	defer cc.Close(testContext(t))
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpMultiRead)-before == levels }, 10*time.Second, time.Millisecond)
	proxy.Cut()
	proxy.SetDelay(0)
	require.NoError(t, cc.AwaitInitialized(testContext(t)))
	assert.Greater(t, proxy.Requests(zktest.OpMultiRead)-before, int64(levels+1), "the last level went again in smaller batches")
	converges(t, c, cc, seq, -1)
}

// A reconnect after k changes costs the catch-up and one read of each
// node that changed, in multi-reads of a thousand: the notifications the
// catch-up's question draws are answered by those reads, not read again
// one by one.
func TestCache_AReconnectReadsEachChangedNodeOnce(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	root := zktest.UniquePath(t)
	require.NoError(t, other.EnsurePath(ctx, root))
	children := make([]framework.Op, 1000) // 1,001 nodes with the root
	for i := range children {
		children[i] = framework.CreateOp(fmt.Sprintf("%s/c%04d", root, i), nil, framework.Persistent)
	}
	_, err := other.Multi(ctx, children...)
	require.NoError(t, err)
	cc, seq := started(t, c, root)
	for _, k := range []int{0, 10, 100, 1000} {
		t.Run(fmt.Sprintf("%d changes", k), func(t *testing.T) {
			changed := seq.Count(cache.Changed)
			proxy.Pause()
			if k > 0 {
				sets := make([]framework.Op, k)
				for i := range sets {
					sets[i] = framework.SetOp(fmt.Sprintf("%s/c%04d", root, i), []byte(fmt.Sprint("cut of ", k)), -1)
				}
				_, err := other.Multi(ctx, sets...)
				require.NoError(t, err)
			}
			before := requests(proxy)
			proxy.Resume()
			proxy.Cut()
			require.Eventually(t, func() bool { return seq.Count(cache.Changed) == changed+k }, 20*time.Second, time.Millisecond)
			// A write after: once the cache told it, it has read whatever
			// it was told before, the catch-up's notifications included.
			_, err := other.Set(ctx, root, []byte(fmt.Sprint("after ", k)), -1)
			require.NoError(t, err)
			require.Eventually(t, func() bool { return seq.Count(cache.Changed) == changed+k+1 }, 20*time.Second, time.Millisecond)
			used := requests(proxy) - before - 1 // the write's read
			t.Logf("%d requests after a cut with %d changes", used, k)
			assert.LessOrEqual(t, used, int64(8+k/1000))
		})
	}
	converges(t, other, cc, seq, -1)
}
