package framework_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

func TestCreateProtected_NamesNodesInCuratorsFormat(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	node, err := c.CreateProtected(ctx, path+"/lock-", []byte("d"), framework.EphemeralSequential, framework.WithParents())
	require.NoError(t, err)
	assert.Regexp(t, `^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-lock-\d{10}$`, node.Name)
	id, ok := zkpath.ProtectionID(node.Name)
	require.True(t, ok)
	assert.Equal(t, node.ProtectionID, id)
	assert.Equal(t, path+"/"+node.Name, node.Path)
	assert.Same(t, c.Session(), node.Session)
	_, stat, err := c.Get(ctx, node.Path)
	require.NoError(t, err)
	assert.Equal(t, c.Session().ID(), stat.EphemeralOwner)
}

// Every create loses its answer: the proxy forwards the request, swallows
// the reply and cuts the connection. Each call must still return exactly
// one node, owned by the caller, and the parent must hold nothing else.
func TestCreateProtected_LostAnswersNeverDuplicateNorOrphan(t *testing.T) {
	t.Parallel()
	injections := 200
	if testing.Short() {
		injections = 20
	}
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second),
		framework.WithRetryPolicy(framework.RetryForever(5*time.Millisecond)))
	observer := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	parent := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, parent))

	returned := make(map[string]bool, injections)
	for i := range injections {
		proxy.DropNextCreateReply()
		node, err := c.CreateProtected(ctx, parent+"/n-", nil, framework.EphemeralSequential)
		require.NoError(t, err, "create %d", i)
		require.False(t, returned[node.Name], "create %d returned a node twice", i)
		returned[node.Name] = true
		_, stat, err := observer.Get(ctx, node.Path)
		require.NoError(t, err)
		require.Equal(t, c.Session().ID(), stat.EphemeralOwner, "create %d: the node is the caller's", i)
	}
	assert.Equal(t, injections, proxy.DroppedReplies(), "every create lost its answer")

	children, _, err := observer.Children(ctx, parent)
	require.NoError(t, err)
	assert.Len(t, children, injections, "no duplicate and no orphan")
	for _, name := range children {
		assert.True(t, returned[name], "orphan %s", name)
	}
	t.Logf("injections=%d nodes=%d duplicates=%d orphans=%d", proxy.DroppedReplies(), len(children), len(children)-len(returned), countOrphans(children, returned))
}

func countOrphans(children []string, returned map[string]bool) int {
	n := 0
	for _, name := range children {
		if !returned[name] {
			n++
		}
	}
	return n
}

// The caller gives up while the create's answer is still on its way: the
// node reaches the server, and the client must delete it once it can.
func TestCreateProtected_CancelledWhileTheAnswerIsOutstandingLeavesNoNode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fault func(p *zktest.Proxy)
	}{
		{"slow answer", func(p *zktest.Proxy) { p.SetDelay(700 * time.Millisecond) }},
		{"lost answer", func(p *zktest.Proxy) { p.DropNextCreateReply(); p.SetDelay(300 * time.Millisecond) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy := zktest.NewProxy(t, zktest.Servers(t))
			c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
			observer := connect(t, zktest.Servers(t))
			parent := zktest.UniquePath(t)
			require.NoError(t, c.EnsurePath(testContext(t), parent))

			tc.fault(proxy)
			ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
			defer cancel()
			_, err := c.CreateProtected(ctx, parent+"/lock-", nil, framework.EphemeralSequential)
			require.ErrorIs(t, err, context.DeadlineExceeded)

			// The create does reach the server...
			require.Eventually(t, func() bool {
				children, _, err := observer.Children(testContext(t), parent)
				return err == nil && len(children) == 1 && strings.HasPrefix(children[0], "_c_")
			}, 10*time.Second, 10*time.Millisecond, "the abandoned create reached the server")
			proxy.SetDelay(0)
			// ...and is deleted once the client can. The parent is a
			// container, which the server may reap as soon as it is empty.
			require.Eventually(t, func() bool {
				return len(zktest.Children(t, observer, parent)) == 0
			}, 15*time.Second, 20*time.Millisecond, "the abandoned node was deleted")
		})
	}
}

// A node found by its protection id but owned by an older session is not
// taken: it is deleted, and a new node is made in the current session.
func TestCreateProtected_AbandonedCreateOfAnExpiredSessionIsNotAdopted(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(shortSession),
		framework.WithRetryPolicy(framework.RetryForever(20*time.Millisecond)))
	states := recordStates(c)
	ctx := testContext(t)
	parent := zktest.UniquePath(t)
	// Persistent, not a container: the old session's node goes with its
	// session, and the server reaps an empty container within a second,
	// before the create in the new session.
	_, err := c.Create(ctx, parent, nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	old := c.Session()

	// The create reaches the server, its answer is lost, and the proxy
	// blackholes the client (before its slowed-down reconnect gets through)
	// until the session is lost.
	proxy.SetDelay(time.Second)
	proxy.DropNextCreateReply()
	done := make(chan struct{})
	var node framework.Node
	go func() {
		defer close(done)
		node, err = c.CreateProtected(ctx, parent+"/lock-", nil, framework.EphemeralSequential)
	}()
	require.Eventually(t, func() bool { return proxy.DroppedReplies() == 1 }, 10*time.Second, 5*time.Millisecond)
	proxy.Pause()
	for s := states.next(t, 15*time.Second); s.State != framework.Lost; s = states.next(t, 15*time.Second) {
	}
	proxy.SetDelay(0)
	proxy.Resume()
	<-done
	require.NoError(t, err)
	assert.NotSame(t, old, node.Session)
	assert.Same(t, c.Session(), node.Session)
	_, stat, err := c.Get(ctx, node.Path)
	require.NoError(t, err)
	assert.Equal(t, c.Session().ID(), stat.EphemeralOwner)
	require.Eventually(t, func() bool {
		children, _, err := c.Children(ctx, parent)
		return err == nil && len(children) == 1
	}, 15*time.Second, 20*time.Millisecond, "only the new session's node remains")
}

func TestDeleteProtected_DeletesTheIDsNodesButTheKeptOnes(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	parent := zktest.UniquePath(t)
	a, err := c.CreateProtected(ctx, parent+"/n-", nil, framework.EphemeralSequential, framework.WithParents())
	require.NoError(t, err)
	b, err := c.CreateProtected(ctx, parent+"/n-", nil, framework.EphemeralSequential)
	require.NoError(t, err)
	other, err := c.CreateProtected(ctx, parent+"/n-", nil, framework.EphemeralSequential)
	require.NoError(t, err)
	stray, err := c.Create(ctx, parent+"/"+zkpath.ProtectedName(a.ProtectionID, "n-"), nil, framework.EphemeralSequential)
	require.NoError(t, err)

	done, err := c.Hooks().DeleteProtected(framework.ProtectedCleanup{Parent: parent, IDs: []string{a.ProtectionID, b.ProtectionID}, Keep: map[string]bool{a.Name: true}})
	require.NoError(t, err)
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("the background delete did not finish")
	}
	names, _, err := c.Children(ctx, parent)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{a.Name, other.Name}, names, "the stray %s and %s are gone", stray, b.Name)

	_, err = c.Hooks().DeleteProtected(framework.ProtectedCleanup{Parent: "bad"})
	require.ErrorIs(t, err, framework.ErrInvalidPath)
	require.NoError(t, c.Close())
	_, err = c.Hooks().DeleteProtected(framework.ProtectedCleanup{Parent: parent})
	require.ErrorIs(t, err, framework.ErrClosed)
}

// A create cut off with its connection may reach the server after the
// clean-up has looked: the clean-up looks again a second later and deletes
// the node that turned up.
func TestDeleteProtected_LooksAgainForALateArrival(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	parent := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, parent))
	id := zkpath.NewProtectionID()

	done, err := c.Hooks().DeleteProtected(framework.ProtectedCleanup{Parent: parent, IDs: []string{id}, Keep: nil, After: nil})
	require.NoError(t, err)
	zktest.WaitClosed(t, done, 15*time.Second, "the first look")
	late, err := c.Create(ctx, parent+"/"+zkpath.ProtectedName(id, "n-"), nil, framework.EphemeralSequential)
	require.NoError(t, err)
	other, err := c.Create(ctx, parent+"/n-", nil, framework.EphemeralSequential)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		return assert.ObjectsAreEqual([]string{zkpath.Base(other)}, zktest.Children(t, c, parent))
	}, 10*time.Second, 20*time.Millisecond, "the late %s is deleted, the other node kept", late)
}

// DeleteProtected with LaterOnly skips the first look, which its caller has made:
// a stray already there stays until the look a second later, which
// deletes it and keeps the named node.
func TestDeleteProtected_LaterOnlyLooksOnlyLater(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	parent := zktest.UniquePath(t)
	kept, err := c.CreateProtected(ctx, parent+"/n-", nil, framework.EphemeralSequential, framework.WithParents())
	require.NoError(t, err)
	stray, err := c.Create(ctx, parent+"/"+zkpath.ProtectedName(kept.ProtectionID, "n-"), nil, framework.EphemeralSequential)
	require.NoError(t, err)

	later := framework.ProtectedCleanup{Parent: parent, IDs: []string{kept.ProtectionID}, Keep: map[string]bool{kept.Name: true}, LaterOnly: true}
	_, err = c.Hooks().DeleteProtected(later)
	require.NoError(t, err)
	time.Sleep(300 * time.Millisecond) // the first look is a second away however slow the machine
	assert.Len(t, zktest.Children(t, c, parent), 2, "no look yet")
	require.Eventually(t, func() bool {
		return assert.ObjectsAreEqual([]string{kept.Name}, zktest.Children(t, c, parent))
	}, 10*time.Second, 20*time.Millisecond, "the stray %s is deleted, the kept node kept", stray)

	_, err = c.Hooks().DeleteProtected(framework.ProtectedCleanup{Parent: "bad", LaterOnly: true})
	require.ErrorIs(t, err, framework.ErrInvalidPath)
	require.NoError(t, c.Close())
	_, err = c.Hooks().DeleteProtected(framework.ProtectedCleanup{Parent: parent, LaterOnly: true})
	require.ErrorIs(t, err, framework.ErrClosed)
}

// MultiSent counts the runs of a transaction: a transaction whose answer
// was lost and that no look can find is not sent again (issue 20, item 3).
func TestMultiSent_CountsARunWhoseAnswerWasLost(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	parent := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, parent))

	_, sent, err := c.Hooks().MultiSent(ctx, framework.CreateOp(parent+"/n-", nil, framework.PersistentSequential))
	require.NoError(t, err)
	assert.Equal(t, 1, sent)
	proxy.DropNextCreateReply()
	_, sent, err = c.Hooks().MultiSent(ctx, framework.CreateOp(parent+"/n-", nil, framework.PersistentSequential))
	require.ErrorIs(t, err, framework.ErrOutcomeUnknown, "an unprotected create cannot be looked for")
	assert.Equal(t, 1, sent, "not sent again")
	assert.Len(t, zktest.Children(t, c, parent), 2, "the lost run was applied, once")
}
