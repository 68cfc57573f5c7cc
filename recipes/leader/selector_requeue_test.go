package leader_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// requeueTerm is one term of a selector in the requeue test, handed to the
// test to end.
type requeueTerm struct {
	who  int
	node string
	end  chan struct{} // closed by the test to make the function return
	done chan struct{} // closed when the function has returned
}

// runningTerms is the functions of the requeue test that run, by their
// term's node, each marked once the test deleted its node: such a function
// may still run when its successor begins.
type runningTerms struct {
	mu       sync.Mutex
	deleted  map[string]bool // node → deleted by the test
	overlaps int
}

// begin counts the function of node's term in, and an overlap if another
// runs whose node was not deleted.
func (r *runningTerms) begin(node string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, deleted := range r.deleted {
		if !deleted {
			r.overlaps++
			break
		}
	}
	r.deleted[node] = false
}

// end counts the function of node's term out.
func (r *runningTerms) end(node string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.deleted, node)
}

// deleting marks node's term as one whose node is about to be deleted.
func (r *runningTerms) deleting(node string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.deleted[node] = true
}

// overlapCount returns how many functions began while another ran whose
// node was not deleted.
func (r *runningTerms) overlapCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.overlaps
}

// 1,000 terms among three auto-requeued selectors, each ended by one of
// three causes in turn: the function returns, the leader's connection is
// cut (a loss), the leader's node is deleted by someone else (a loss).
// No two functions run at once but for a deleted node's, every term is
// followed by another, and at the end every selector leads or waits: none
// is stuck; Close then empties the election.
func TestSelector_AutoRequeueThroughAThousandEndedTerms(t *testing.T) {
	t.Parallel()
	const selectors, terms = 3, 1000
	servers := zktest.Servers(t)
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	admin := zktest.Connect(t, servers)
	running := runningTerms{deleted: map[string]bool{}}
	started := make(chan requeueTerm)
	proxies := make([]*zktest.Proxy, selectors)
	sels := make([]*leader.Selector, selectors)
	runs := make(chan error, selectors)
	for i := range sels {
		proxies[i] = zktest.NewProxy(t, servers)
		sels[i] = newSelector(t, zktest.Connect(t, proxies[i].Addr()), path, func(ctx context.Context) error {
			l, _ := leader.LeadershipFrom(ctx)
			tm := requeueTerm{who: i, node: l.Node(), end: make(chan struct{}), done: make(chan struct{})}
			running.begin(tm.node)
			// Counted out before the test hears of the return.
			defer close(tm.done)
			defer running.end(tm.node)
			select {
			case started <- tm:
			case <-ctx.Done():
				return nil
			}
			select {
			case <-tm.end:
			case <-ctx.Done():
			}
			return nil
		}, leader.WithID(fmt.Sprintf("s%d", i)), leader.WithAutoRequeue())
		// Ends when the selector is closed.
		go func() { runs <- sels[i].Run(ctx) }()
	}
	for n := range terms {
		var tm requeueTerm
		select {
		case tm = <-started:
		case <-time.After(30 * time.Second):
			t.Fatalf("no term after %d terms: a participant is stuck; queue %v", n, zktest.Children(t, admin, path))
		}
		switch n % 3 {
		case 0:
			close(tm.end)
		case 1:
			proxies[tm.who].Cut()
		case 2:
			running.deleting(tm.node)
			require.NoError(t, admin.Delete(ctx, tm.node, -1))
		}
		<-tm.done
	}
	assert.Zero(t, running.overlapCount(), "functions ran at once")
	require.Eventually(t, func() bool { return len(zktest.Children(t, admin, path)) == selectors },
		10*time.Second, 10*time.Millisecond, "every selector leads or waits")
	tm := <-started
	close(tm.end)
	for _, s := range sels {
		require.NoError(t, s.Close(ctx))
	}
	for range sels {
		require.ErrorIs(t, <-runs, leader.ErrClosed)
	}
	// A node whose delete was cut off goes in the background.
	assert.Eventually(t, func() bool { return len(zktest.Children(t, admin, path)) == 0 },
		10*time.Second, 10*time.Millisecond, "the election is left empty")
}
