package barrier_test

import (
	"context"
	"fmt"
	"path"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/barrier"
)

// Go and Curator wait at one barrier: each side's removal lets the other's
// waiter through.
func TestCurator_GoAndJavaWaitAtOneBarrier(t *testing.T) {
	servers := zktest.Servers(t)
	cur := zktest.StartCurator(t, servers)
	ctx := testContext(t)
	b := newBarrier(t, connect(t, servers), zktest.UniquePath(t)+"/b")

	require.NoError(t, cur.BarrierSet(ctx, b.Path()))
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, b.Wait(short), context.DeadlineExceeded, "Go waits at Curator's barrier")
	waiting := waitAsync(ctx, b.Wait)
	require.NoError(t, cur.BarrierRemove(ctx, b.Path()))
	require.NoError(t, receive(t, waiting, "Go's wait"))

	require.NoError(t, b.Set(ctx))
	passed, err := cur.BarrierWait(ctx, b.Path(), 200*time.Millisecond)
	require.NoError(t, err)
	assert.False(t, passed, "Curator waits at Go's barrier")
	type answer struct {
		passed bool
		err    error
	}
	javaWaiting := make(chan answer, 1)
	go func() { // ends when Curator's wait returns
		ok, err := cur.BarrierWait(ctx, b.Path(), 20*time.Second)
		javaWaiting <- answer{ok, err}
	}()
	require.NoError(t, b.Remove(ctx))
	a := receive(t, javaWaiting, "Curator's wait")
	require.NoError(t, a.err)
	assert.True(t, a.passed)
}

// party is a member of a double barrier, Go or Java, with the instants
// (CLOCK_MONOTONIC) its calls began and returned.
type party struct {
	name  string
	enter func() (called, returned int64, err error)
	leave func() (called, returned int64, err error)
	node  func() string // "" for a Java member: Curator keeps its name to itself
}

// timed is what a party's call returned, with its instants.
type timed struct {
	called, returned int64
	err              error
}

func goParty(t *testing.T, ctx context.Context, name string, d *barrier.Double) *party {
	var m *barrier.Member
	return &party{
		name: name,
		enter: func() (int64, int64, error) {
			called := zktest.Monotonic()
			var err error
			m, err = d.Enter(ctx)
			return called, zktest.Monotonic(), err
		},
		leave: func() (int64, int64, error) {
			called := zktest.Monotonic()
			err := m.Leave(ctx)
			return called, zktest.Monotonic(), err
		},
		node: func() string { return path.Base(m.Node()) },
	}
}

func javaParty(ctx context.Context, cur *zktest.Curator, name, dir string, members int) *party {
	return &party{
		name: name,
		enter: func() (int64, int64, error) {
			ok, s, err := cur.DoubleBarrierEnter(ctx, name, dir, members, -1)
			if err == nil && !ok {
				err = fmt.Errorf("%s: not entered", name)
			}
			return s.Called, s.Returned, err
		},
		leave: func() (int64, int64, error) {
			ok, s, err := cur.DoubleBarrierLeave(ctx, name, -1)
			if err == nil && !ok {
				err = fmt.Errorf("%s: not left", name)
			}
			return s.Called, s.Returned, err
		},
		node: func() string { return "" },
	}
}

func async(call func() (int64, int64, error)) <-chan timed {
	ch := make(chan timed, 1)
	go func() { // ends when call returns
		c, r, err := call()
		ch <- timed{c, r, err}
	}()
	return ch
}

// Two Go and two Java members pass one double barrier together, arriving
// one after the other: none enters before the last has arrived, none
// leaves before the last has left. Java completes the count.
func TestCurator_GoAndJavaMembersPassOneDoubleBarrierTogether(t *testing.T) {
	testDoubleTogether(t, []string{"go1", "java1", "go2", "java2"})
}

// The same with Go completing the count, and Java waiting for Go's ready.
func TestCurator_JavaMembersEnterWithTheGoMemberThatCompletesTheCount(t *testing.T) {
	testDoubleTogether(t, []string{"java1", "go1", "java2", "go2"})
}

func testDoubleTogether(t *testing.T, order []string) {
	servers := zktest.Servers(t)
	cur := zktest.StartCurator(t, servers)
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	observer := connect(t, servers)
	n := len(order)
	parties := make([]*party, n)
	for i, name := range order {
		if name[:2] == "go" {
			parties[i] = goParty(t, ctx, name, newDouble(t, connect(t, servers), dir, n))
		} else {
			parties[i] = javaParty(ctx, cur, name+"-"+path.Base(dir), dir, n)
		}
	}

	// They arrive one after the other: each once the one before has made
	// its node.
	entering := make([]<-chan timed, n)
	for i, p := range parties {
		entering[i] = async(p.enter)
		if i < n-1 {
			require.Eventually(t, func() bool { return len(memberNodes(t, observer, dir)) == i+1 }, 20*time.Second, 5*time.Millisecond)
			for _, ch := range entering[:i+1] {
				assert.Empty(t, ch, "entered before all arrived")
			}
		}
	}
	enters := collect(t, entering, "an enter")
	assertTogether(t, enters, "enter")

	// They leave one after the other, a Go member last: the others wait
	// until only its node and the first node (which goes last) are left.
	last := lastGo(parties)
	nodes := memberNodes(t, observer, dir)
	require.Len(t, nodes, n)
	want := []string{parties[last].node()}
	if first := slices.Min(nodes); first != want[0] {
		want = append([]string{first}, want...)
	}
	var leaving []<-chan timed
	for i, p := range parties {
		if i != last {
			leaving = append(leaving, async(p.leave))
		}
	}
	require.Eventually(t, func() bool { return slices.Equal(memberNodes(t, observer, dir), want) }, 20*time.Second, 5*time.Millisecond)
	for _, ch := range leaving {
		assert.Empty(t, ch, "left before the last left")
	}
	leaving = append(leaving, async(parties[last].leave))
	leaves := collect(t, leaving, "a leave")
	assertTogether(t, leaves, "leave")
	assert.Empty(t, memberNodes(t, observer, dir), "every member's node is gone")
}

// lastGo returns the index of the last Go party.
func lastGo(parties []*party) int {
	for i := len(parties) - 1; i >= 0; i-- {
		if parties[i].name[:2] == "go" {
			return i
		}
	}
	panic("no Go party")
}

func collect(t *testing.T, chans []<-chan timed, what string) []timed {
	t.Helper()
	var out []timed
	for _, ch := range chans {
		r := receive(t, ch, what)
		require.NoError(t, r.err)
		out = append(out, r)
	}
	return out
}

// assertTogether checks that every call returned after the last one began.
func assertTogether(t *testing.T, calls []timed, what string) {
	t.Helper()
	var lastCalled, firstReturned int64 = 0, 1<<63 - 1
	for _, c := range calls {
		lastCalled = max(lastCalled, c.called)
		firstReturned = min(firstReturned, c.returned)
	}
	assert.LessOrEqual(t, lastCalled, firstReturned, "a %s returned before the last %s began", what, what)
}
