package barrier_test

import (
	"context"
	"path"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/barrier"
)

// proxied returns a Double at path for members on a client of its own,
// through a proxy of its own.
func proxied(t *testing.T, path string, members int) (*zktest.Proxy, *barrier.Double) {
	t.Helper()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	return proxy, newDouble(t, connect(t, proxy.Addr()), path, members)
}

func TestDouble_MembersEnterOnlyOnceAllHaveArrived(t *testing.T) {
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	observer := connect(t, zktest.Servers(t))
	var waiting []<-chan entered
	for range 2 {
		proxy, d := proxied(t, dir, 3)
		lists := proxy.Requests(zktest.OpGetChildren2)
		waiting = append(waiting, enterAsync(ctx, d))
		// It has made its node and counted the members: it waits.
		require.Eventually(t, func() bool { return proxy.Requests(zktest.OpGetChildren2) > lists }, 10*time.Second, time.Millisecond)
	}
	assert.Len(t, memberNodes(t, observer, dir), 2)
	for _, ch := range waiting {
		assert.Empty(t, ch, "entered before the third arrived")
	}

	last, err := newDouble(t, connect(t, zktest.Servers(t)), dir, 3).Enter(ctx)
	require.NoError(t, err)
	for _, ch := range waiting {
		e := receive(t, ch, "an enter")
		require.NoError(t, e.err)
	}
	names := zktest.Children(t, observer, dir)
	assert.Len(t, names, 4, "three members and ready")
	assert.Contains(t, names, "ready")
	assert.Contains(t, names, path.Base(last.Node()))
}

func TestDouble_MembersLeaveOnlyOnceAllHaveLeft(t *testing.T) {
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	observer := connect(t, zktest.Servers(t))
	proxies := make([]*zktest.Proxy, 3)
	members := make([]*barrier.Member, 3)
	var entering []<-chan entered
	for i := range 3 {
		var d *barrier.Double
		proxies[i], d = proxied(t, dir, 3)
		entering = append(entering, enterAsync(ctx, d))
	}
	for i, ch := range entering {
		e := receive(t, ch, "an enter")
		require.NoError(t, e.err)
		members[i] = e.m
	}

	var leaving []<-chan error
	for i := range 2 {
		looks := proxies[i].Requests(opExists)
		leaving = append(leaving, leaveAsync(ctx, members[i]))
		// It has left and watches a node of another's: it waits.
		require.Eventually(t, func() bool { return proxies[i].Requests(opExists) > looks }, 10*time.Second, time.Millisecond)
	}
	for _, ch := range leaving {
		assert.Empty(t, ch, "left before the third left")
	}
	require.NoError(t, members[2].Leave(ctx))
	for _, ch := range leaving {
		require.NoError(t, receive(t, ch, "a leave"))
	}
	assert.Empty(t, zktest.Children(t, observer, dir), "no member node, and no ready")
}

// Goroutines of one client, each entering the same Double, are members of
// their own.
func TestDouble_GoroutinesOfOneClientAreMembersOfTheirOwn(t *testing.T) {
	ctx := testContext(t)
	c := connect(t, zktest.Servers(t))
	d := newDouble(t, c, zktest.UniquePath(t), 3)
	var entering []<-chan entered
	for range 3 {
		entering = append(entering, enterAsync(ctx, d))
	}
	var leaving []<-chan error
	for _, ch := range entering {
		e := receive(t, ch, "an enter")
		require.NoError(t, e.err)
		leaving = append(leaving, leaveAsync(ctx, e.m))
	}
	for _, ch := range leaving {
		require.NoError(t, receive(t, ch, "a leave"))
	}
	assert.Empty(t, zktest.Children(t, c, d.Path()))
}

// The count is a threshold: a member arriving while the barrier is open
// enters at once.
func TestDouble_MemberArrivingWhileOpenEntersAtOnce(t *testing.T) {
	ctx := testContext(t)
	d := newDouble(t, connect(t, zktest.Servers(t)), zktest.UniquePath(t), 1)
	first, err := d.Enter(ctx)
	require.NoError(t, err)
	second, err := d.Enter(ctx)
	require.NoError(t, err)
	assert.NotEqual(t, first.Node(), second.Node())
	leaving := leaveAsync(ctx, first)
	require.NoError(t, second.Leave(ctx))
	require.NoError(t, receive(t, leaving, "a leave"))
}

func TestDouble_EnterThatEndsWithItsContextLeavesNothing(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	d := newDouble(t, c, zktest.UniquePath(t), 2)
	ctx, cancel := context.WithTimeout(testContext(t), 300*time.Millisecond)
	defer cancel()

	_, err := d.Enter(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Empty(t, memberNodes(t, c, d.Path()), "the node was deleted")
}

// A member that gives up waiting for the others has left all the same:
// its node is gone, and the others do not wait for it.
func TestDouble_LeaveThatEndsWithItsContextDeletesTheNode(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	d := newDouble(t, c, zktest.UniquePath(t), 2)
	a, b := enterAsync(ctx, d), enterAsync(ctx, d)
	ea, eb := receive(t, a, "an enter"), receive(t, b, "an enter")
	require.NoError(t, ea.err)
	require.NoError(t, eb.err)

	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, ea.m.Leave(short), context.DeadlineExceeded)
	assert.Equal(t, []string{path.Base(eb.m.Node())}, memberNodes(t, c, d.Path()))
	require.ErrorIs(t, ea.m.Leave(ctx), barrier.ErrReleased, "a second leave")
	require.NoError(t, eb.m.Leave(ctx))
	assert.Empty(t, zktest.Children(t, c, d.Path()))
}

// The member that gives up its Leave may be the first in name order,
// whose node the others follow; they still wait for every other member.
func TestDouble_OthersWaitForEveryMemberWhenTheFirstGivesUp(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	type member struct {
		proxy *zktest.Proxy
		m     *barrier.Member
	}
	var members []member
	var entering []<-chan entered
	var proxies []*zktest.Proxy
	for range 3 {
		proxy, d := proxied(t, dir, 3)
		proxies = append(proxies, proxy)
		entering = append(entering, enterAsync(ctx, d))
	}
	for i, ch := range entering {
		e := receive(t, ch, "an enter")
		require.NoError(t, e.err)
		members = append(members, member{proxies[i], e.m})
	}
	slices.SortFunc(members, func(a, b member) int { return compare(a.m.Node(), b.m.Node()) })
	first, middle, last := members[0], members[1], members[2]

	waiting := leaveAsync(ctx, middle.m) // deletes its node and follows first's
	require.Eventually(t, func() bool { return len(memberNodes(t, c, dir)) == 2 }, 10*time.Second, time.Millisecond)
	looks := middle.proxy.Requests(opExists)
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, first.m.Leave(short), context.DeadlineExceeded)
	assert.Equal(t, []string{path.Base(last.m.Node())}, memberNodes(t, c, dir))
	// Middle, woken by first's delete, either follows last or has left.
	require.Eventually(t, func() bool { return len(waiting) > 0 || middle.proxy.Requests(opExists) > looks },
		10*time.Second, time.Millisecond)
	assert.Empty(t, waiting, "middle left while last had not")
	require.NoError(t, last.m.Leave(ctx))
	require.NoError(t, receive(t, waiting, "middle's leave"))
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestDouble_LeaveOfAMemberWhoseNodeWasDeletedIsErrLost(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	m, err := newDouble(t, c, zktest.UniquePath(t), 1).Enter(ctx)
	require.NoError(t, err)
	require.NoError(t, c.Delete(ctx, m.Node(), -1))
	require.ErrorIs(t, m.Leave(ctx), barrier.ErrLost)
}

func TestDouble_MemberWhoseSessionIsLostWhileWaitingToEnterGetsErrLost(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(2*time.Second))
	observer := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	d := newDouble(t, c, zktest.UniquePath(t), 2)
	session := c.Session()
	lists := proxy.Requests(zktest.OpGetChildren2)
	waiting := enterAsync(ctx, d)
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpGetChildren2) > lists }, 10*time.Second, time.Millisecond)

	proxy.Pause()
	zktest.WaitClosed(t, session.Lost(), 20*time.Second, "the session's loss")
	e := receive(t, waiting, "the enter")
	require.ErrorIs(t, e.err, barrier.ErrLost)
	proxy.Resume()
	require.Eventually(t, func() bool { return len(memberNodes(t, observer, d.Path())) == 0 }, 20*time.Second, 10*time.Millisecond,
		"the node went with its session")
}

// A member's create whose answer was lost is sent again and meets the node
// it made: that is the member's own.
func TestDouble_EnterWhoseCreateAnswerIsLostKeepsItsOwnNode(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, dir)) // so that the member's is the first create
	d := newDouble(t, c, dir, 1)

	proxy.DropNextCreateReply()
	m, err := d.Enter(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, proxy.DroppedReplies())
	assert.Equal(t, []string{path.Base(m.Node())}, memberNodes(t, c, dir))
	require.NoError(t, m.Leave(ctx))
}

// A member waiting to enter while its connection is down enters once it
// is back: its watch on ready is set again.
func TestDouble_WaiterRidesOutAConnectionLoss(t *testing.T) {
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	proxy, d := proxied(t, dir, 2)
	lists := proxy.Requests(zktest.OpGetChildren2)
	waiting := enterAsync(ctx, d)
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpGetChildren2) > lists }, 10*time.Second, time.Millisecond)

	proxy.Pause()
	other, err := newDouble(t, connect(t, zktest.Servers(t)), dir, 2).Enter(ctx)
	require.NoError(t, err)
	assert.Empty(t, waiting)
	proxy.Cut()
	proxy.Resume()
	e := receive(t, waiting, "the enter")
	require.NoError(t, e.err)
	leaving := leaveAsync(ctx, other)
	require.NoError(t, e.m.Leave(ctx))
	require.NoError(t, receive(t, leaving, "a leave"))
}

// An Enter whose ctx ends while its create waits for an answer returns at
// once, but the create goes on: with the round's directory missing, it
// makes the parents and then the member's node after Enter has returned.
// That node must not outlive the abandoned create's course.
func TestDouble_EnterThatEndsWhileItsCreateIsOnItsWayLeavesNothing(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	observer := connect(t, zktest.Servers(t))
	dir := zktest.UniquePath(t) + "/round" // missing: the create makes its parents
	d := newDouble(t, c, dir, 2)
	ctx, cancel := context.WithTimeout(testContext(t), 500*time.Millisecond)
	defer cancel()

	proxy.HoldRepliesFrom(zktest.OpCreate) // the first create's NoNode, and all after it
	_, err := d.Enter(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	proxy.ReleaseReplies()

	present := func() bool {
		ok, _, err := observer.Exists(testContext(t), dir)
		return err == nil && ok && len(memberNodes(t, observer, dir)) > 0
	}
	require.Eventually(t, present, 10*time.Second, 10*time.Millisecond, "the abandoned create made the member's node")
	assert.Eventually(t, func() bool { return len(memberNodes(t, observer, dir)) == 0 }, 10*time.Second, 20*time.Millisecond,
		"the member's node made after Enter returned is deleted")
}

// A member waiting to enter when its client is closed fails with ErrClosed,
// not ErrLost: the close ended its session, nobody lost it.
func TestDouble_EnterWaitingWhenItsClientClosesFailsWithErrClosed(t *testing.T) {
	ctx := testContext(t)
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	d := newDouble(t, c, zktest.UniquePath(t), 2)
	lists := proxy.Requests(zktest.OpGetChildren2)
	waiting := enterAsync(ctx, d)
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpGetChildren2) > lists }, 10*time.Second, time.Millisecond)
	require.NoError(t, c.Close())
	e := receive(t, waiting, "the enter")
	require.ErrorIs(t, e.err, barrier.ErrClosed)
	assert.NotErrorIs(t, e.err, barrier.ErrLost)
}

// An Enter whose create's answer is lost and that may not try again (its
// retry policy is spent) fails, and the node its create made is deleted:
// a member that failed is no member the others count.
func TestDouble_EnterThatGivesUpAfterItsCreatesAnswerIsLostLeavesNothing(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithRetryPolicy(framework.NoRetry()))
	observer := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, dir)) // so that the member's is the first create
	d := newDouble(t, c, dir, 2)

	proxy.DropNextCreateReply()
	_, err := d.Enter(ctx)
	require.Error(t, err)
	require.Equal(t, 1, proxy.DroppedReplies())
	assert.Eventually(t, func() bool { return len(memberNodes(t, observer, dir)) == 0 }, 10*time.Second, 10*time.Millisecond,
		"the node the lost create made is deleted")
}
