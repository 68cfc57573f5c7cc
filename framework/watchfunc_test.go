package framework_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// heard records what a Hooks.WatchFunc watch is told.
type heard struct {
	mu     sync.Mutex
	events []framework.WatchEvent
	ends   []error
}

func (h *heard) event(ev framework.WatchEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, ev)
}

func (h *heard) end(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ends = append(h.ends, err)
}

func (h *heard) types() []framework.WatchEventType {
	h.mu.Lock()
	defer h.mu.Unlock()
	var types []framework.WatchEventType
	for _, ev := range h.events {
		types = append(types, ev.Type)
	}
	return types
}

func (h *heard) endCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.ends)
}

// watchFunc sets a recursive WatchFunc watch on a new path, which it
// returns with the watch and what the watch is told. The path is a
// persistent node: a container whose child came and went would be reaped
// under the test (the test servers reap within a second).
func watchFunc(t *testing.T, c *framework.Client) (string, *framework.Watch, *heard) {
	t.Helper()
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	_, err := c.Create(ctx, path, nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	h := new(heard)
	w, err := c.Hooks().WatchFunc(ctx, path, framework.WatchRecursive, h.event, h.end)
	require.NoError(t, err)
	return path, w, h
}

// The events of a WatchFunc's watch are told before the answer to the
// write that made them is handed on, in the server's order.
func TestWatchFunc_TellsAnEventBeforeTheAnswerOfItsWrite(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path, w, h := watchFunc(t, c)
	_, open := <-w.Events()
	assert.False(t, open, "Events is closed: the events go to onEvent")

	_, err := c.Create(ctx, path+"/a", nil, framework.Persistent)
	require.NoError(t, err)
	assert.Equal(t, []framework.WatchEventType{framework.NodeCreated}, h.types(), "told before the create returned")
	require.NoError(t, c.Delete(ctx, path+"/a", -1))
	assert.Equal(t, []framework.WatchEventType{framework.NodeCreated, framework.NodeDeleted}, h.types())

	require.NoError(t, w.Close(ctx))
	_, err = c.Create(ctx, path+"/b", nil, framework.Persistent)
	require.NoError(t, err)
	assert.Len(t, h.types(), 2, "nothing is told once Close has returned")
	assert.Zero(t, h.endCount(), "Close is no end to tell")
}

// A new connection is told (WatchInterrupted) before any answer that
// comes on it, and WatchResumed follows once the watch is set again.
func TestWatchFunc_ANewConnectionIsToldBeforeItsAnswers(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	ctx := testContext(t)
	path, w, h := watchFunc(t, c)
	defer w.Close(ctx)

	// The restore's answer comes after the create's, as late as it may.
	proxy.SetAsideNextReply(zktest.OpSetWatches2)
	proxy.Cut()
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpSetWatches2) == 1 }, 10*time.Second, 5*time.Millisecond,
		"the server has the watch again before the create")
	_, err := c.Create(ctx, path+"/a", nil, framework.Persistent)
	require.NoError(t, err)
	assert.Equal(t, []framework.WatchEventType{framework.WatchInterrupted, framework.NodeCreated}, h.types(),
		"the interruption is told before the create's event and answer on the new connection")
	proxy.ReleaseReplies()
	require.Eventually(t, func() bool { return len(h.types()) == 3 }, 10*time.Second, 5*time.Millisecond)
	assert.Equal(t, framework.WatchResumed, h.types()[2])
}

// A watch that ends other than by Close tells onEnd once; a nil onEvent
// is bad input.
func TestWatchFunc_AClosedClientEndsItOnce(t *testing.T) {
	c, err := framework.Connect(testContext(t), []string{zktest.Servers(t)})
	require.NoError(t, err)
	_, err = c.Hooks().WatchFunc(testContext(t), "/", framework.WatchPersistent, nil, nil)
	require.ErrorIs(t, err, framework.ErrInvalidArgument)
	var h heard
	w, err := c.Hooks().WatchFunc(testContext(t), "/", framework.WatchPersistent, h.event, h.end)
	require.NoError(t, err)
	require.NoError(t, c.Close())
	require.Equal(t, 1, h.endCount())
	assert.ErrorIs(t, h.ends[0], framework.ErrClosed)
	assert.ErrorIs(t, w.Err(), framework.ErrClosed)
	require.NoError(t, w.Close(testContext(t)))
	assert.Equal(t, 1, h.endCount())
}
