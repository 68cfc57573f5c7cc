package rwlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// Helpers shared by the integration tests of every package.
var (
	connect     = zktest.Connect
	testContext = zktest.Context
	children    = zktest.Children
	waitClosed  = zktest.WaitClosed
)

// heldTimeout bounds a timed acquire that is to find the lock held and say
// ErrNotAcquired: it must outlast the answers that show the lock held. A
// loaded machine answered later than the 100 to 300 ms these acquires had,
// and they rightly said ErrUnreachable (the deadline ran out before the
// server answered). The lock stays held throughout, so the acquire waits
// it out whatever it is.
const heldTimeout = time.Second

// participantNodes returns the participants' nodes, in order.
func participantNodes(ps []rwlock.Participant) []string {
	nodes := make([]string, len(ps))
	for i, p := range ps {
		nodes[i] = p.Node
	}
	return nodes
}

func newRW(t testing.TB, c *framework.Client, path string, opts ...rwlock.Option) *rwlock.ReadWriteLock {
	t.Helper()
	rw, err := rwlock.New(c, path, opts...)
	require.NoError(t, err)
	return rw
}

// pending is an acquire running in the background.
type pending struct {
	holds   chan *rwlock.Hold
	failed  chan error
	release chan struct{}
	done    chan struct{}
}

// start acquires l in a goroutine of its own (its owner), keeps the hold
// until release is closed, then releases it; done closes after that.
func start(l *rwlock.Lock) *pending {
	p := &pending{holds: make(chan *rwlock.Hold, 1), failed: make(chan error, 1), release: make(chan struct{}), done: make(chan struct{})}
	go func() { // ends after the release, once p.release is closed
		defer close(p.done)
		h, err := l.Acquire(context.Background())
		if err != nil {
			p.failed <- err
			return
		}
		p.holds <- h
		<-p.release
		if err := h.Release(context.Background()); err != nil {
			p.failed <- err
		}
	}()
	return p
}

// held returns p's hold, failing the test if it does not come in time.
func (p *pending) held(t *testing.T, what string) *rwlock.Hold {
	t.Helper()
	select {
	case h := <-p.holds:
		return h
	case err := <-p.failed:
		t.Fatalf("%s: acquire failed: %v", what, err)
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: not acquired within 20s", what)
	}
	return nil
}

// notHeld fails the test if p acquires within d.
func (p *pending) notHeld(t *testing.T, d time.Duration, what string) {
	t.Helper()
	select {
	case <-p.holds:
		t.Fatalf("%s acquired while it must wait", what)
	case err := <-p.failed:
		t.Fatalf("%s: acquire failed: %v", what, err)
	case <-time.After(d):
	}
}

// finish releases p's hold and waits until it is released.
func (p *pending) finish(t *testing.T) {
	t.Helper()
	close(p.release)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		t.Fatal("release did not finish within 20s")
	}
	select {
	case err := <-p.failed:
		t.Fatalf("release failed: %v", err)
	default:
	}
}

// queued waits until the directory at path holds n nodes.
func queued(t *testing.T, c *framework.Client, path string, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return len(children(t, c, path)) == n }, 20*time.Second, 5*time.Millisecond,
		"%d nodes queued", n)
}
