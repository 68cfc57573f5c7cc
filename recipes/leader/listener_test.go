package leader_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// recorder is a listener (its listen) that records its calls and checks, as they come,
// that they never overlap and strictly alternate from IsLeader.
type recorder struct {
	mu     sync.Mutex
	calls  []string
	busy   *atomic.Int32 // calls under way, shared by the recorders of one latch
	faults []string      // overlaps and breaks of alternation seen
	ch     chan struct{} // pinged at every call
	hold   time.Duration // each call lasts this long, to widen overlaps
}

func newRecorder() *recorder {
	return &recorder{ch: make(chan struct{}, 1000), busy: new(atomic.Int32)}
}

// listen is the recorder's leader.Listener.
func (r *recorder) listen(ev leader.Event) {
	if ev.Leadership == nil {
		r.mu.Lock()
		r.faults = append(r.faults, ev.Type.String()+" without its term")
		r.mu.Unlock()
	}
	if ev.Type == leader.IsLeader {
		r.call("is")
	} else {
		r.call("not")
	}
}

func (r *recorder) call(what string) {
	overlap := r.busy.Add(1) != 1
	r.mu.Lock()
	if overlap {
		r.faults = append(r.faults, "overlap at "+what)
	}
	want := "is"
	if len(r.calls) > 0 && r.calls[len(r.calls)-1] == "is" {
		want = "not"
	}
	if what != want {
		r.faults = append(r.faults, what+" after "+want+" was due")
	}
	r.calls = append(r.calls, what)
	r.mu.Unlock()
	time.Sleep(r.hold) // widens the window in which an overlap would show
	r.busy.Add(-1)
	select {
	case r.ch <- struct{}{}:
	default:
	}
}

// seen returns the calls so far and the faults found.
func (r *recorder) seen() (calls, faults []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...), append([]string(nil), r.faults...)
}

// waitCalls waits until r has recorded at least the calls in want, and
// checks that they came first.
func (r *recorder) waitCalls(t testing.TB, want []string) {
	t.Helper()
	require.Eventually(t, func() bool {
		calls, _ := r.seen()
		return len(calls) >= len(want)
	}, 30*time.Second, 5*time.Millisecond, "listener calls %v", want)
	calls, faults := r.seen()
	require.Empty(t, faults)
	require.Equal(t, want, calls[:len(want)], "calls %v", calls)
}

// A listener is a function of one event, which carries the term: the one
// that began with IsLeader, the same one, ended and saying why, with
// NotLeader.
func TestLatch_ListenersAreToldTheTermThatBeganAndEnded(t *testing.T) {
	l := startLatch(t, connect(t, zktest.Servers(t)), zktest.UniquePath(t))
	events := make(chan leader.Event, 4)
	l.AddListener(func(ev leader.Event) { events <- ev })
	lead := await(t, l, 10*time.Second, "the latch")
	began := <-events
	assert.Equal(t, leader.IsLeader, began.Type)
	assert.Same(t, lead, began.Leadership)
	require.NoError(t, l.Resign(testContext(t)))
	ended := <-events
	assert.Equal(t, leader.NotLeader, ended.Type)
	assert.Same(t, lead, ended.Leadership)
	require.ErrorIs(t, ended.Leadership.Err(), leader.ErrResigned)
}
