package queue

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/zkrecipes/zkrecipes/framework"
)

func created(name string) framework.WatchEvent {
	return framework.WatchEvent{Type: framework.NodeCreated, Path: "/q/" + name}
}

func deleted(name string) framework.WatchEvent {
	return framework.WatchEvent{Type: framework.NodeDeleted, Path: "/q/" + name}
}

// A listing's answer may be older or newer than the events that came
// while it was under way; replayed onto it, they give the queue as it is.
func TestView_ReplaysTheEventsThatCameDuringItsListing(t *testing.T) {
	v := newView("/q", fifo)
	v.armed(v.current())
	epoch := v.begin()
	v.apply(created("queue-0000000003")) // after the listing
	v.apply(deleted("queue-0000000001")) // after the listing
	v.apply(created("queue-0000000002")) // before: the listing has it
	v.fill(epoch, []string{"queue-0000000001", "queue-0000000002", "foreign"})
	assert.Equal(t, []string{"queue-0000000002", "queue-0000000003"}, v.items())
	v.apply(created("queue-0000000000-x/below")) // not a child of the queue
	v.apply(deleted("queue-0000000002"))
	assert.Equal(t, []string{"queue-0000000003"}, v.items())
	assert.False(t, v.has("queue-0000000002"), "a take of a deleted item sends nothing")
}

// A new connection ends the view: a listing under way counts for nothing,
// and the view is listed again once the watch is set again.
func TestView_ANewConnectionEndsItUntilTheNextListing(t *testing.T) {
	v := newView("/q", fifo)
	v.armed(v.current())
	epoch := v.begin()
	v.apply(framework.WatchEvent{Type: framework.WatchInterrupted})
	v.fill(epoch, []string{"queue-0000000001"})
	_, on, exact := v.state()
	assert.False(t, on)
	assert.False(t, exact)
	assert.Nil(t, v.items())
	assert.False(t, v.has("queue-0000000001"))
	v.apply(framework.WatchEvent{Type: framework.WatchResumed, Path: "/q"})
	v.fill(v.begin(), []string{"queue-0000000001"})
	assert.Equal(t, []string{"queue-0000000001"}, v.items())
}

// The view keeps the first items in the queue's order up to its bound;
// once it has none left, it must list again, and keeps the first again.
func TestView_IsBoundedAndListsAgainOnceItsItemsAreGone(t *testing.T) {
	v := newView("/q", priority)
	v.limit = 3
	v.armed(v.current())
	v.fill(v.begin(), []string{"queue-1000000050000000004", "queue-1000000050000000001", "queue-1000000050000000002", "queue-1000000050000000003"})
	assert.Equal(t, []string{"queue-1000000050000000001", "queue-1000000050000000002", "queue-1000000050000000003"}, v.items())
	v.apply(created("queue-0FFFFFFFF0000000009")) // goes first: the last is left out
	assert.Equal(t, []string{"queue-0FFFFFFFF0000000009", "queue-1000000050000000001", "queue-1000000050000000002"}, v.items())
	v.apply(created("queue-1000000050000000010")) // goes last: left out
	assert.Len(t, v.items(), 3)
	for _, name := range []string{"queue-0FFFFFFFF0000000009", "queue-1000000050000000001", "queue-1000000050000000002"} {
		v.apply(deleted(name))
	}
	assert.Nil(t, v.items(), "items were left out: list again")
	_, _, exact := v.state()
	assert.False(t, exact)
}
