package watches_test

import (
	"errors"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework/internal/watches"
	"github.com/zkrecipes/zkrecipes/framework/internal/wire"
)

// recorder is a Subscriber that keeps what it is told.
type recorder struct {
	key    watches.Key
	events []watches.Event
	err    error
}

func (r *recorder) Key() watches.Key         { return r.key }
func (r *recorder) Deliver(ev watches.Event) { r.events = append(r.events, ev) }
func (r *recorder) End(err error)            { r.err = err }
func watcher(path string, mode watches.Mode) *recorder {
	return &recorder{key: watches.Key{Path: path, Mode: mode}}
}

// notification is the body the server sends for ev.
func notification(typ zk.EventType, path string) []byte {
	var w wire.JuteWriter
	w.Int32(int32(typ))
	w.Int32(int32(zk.StateSyncConnected))
	w.String(path)
	return w.B
}

func newTable() *watches.Table {
	return watches.New(func(zk.Event) {}, func(watches.Key) {})
}

func TestTable_ANodeEventReachesTheWatchesOfItsPathAndTheRecursiveOnesAbove(t *testing.T) {
	tab := newTable()
	data := tab.AddOneShot("/a/b", watches.DataWatch)
	child := tab.AddOneShot("/a/b", watches.ChildWatch)
	own, parent := watcher("/a/b", watches.Persistent), watcher("/a", watches.Persistent)
	above, root := watcher("/a", watches.Recursive), watcher("/", watches.Recursive)
	for _, r := range []*recorder{own, parent, above, root} {
		tab.AddPersistent(r)
	}

	require.NoError(t, tab.Notify(notification(zk.EventNodeCreated, "/a/b")))

	select {
	case ev := <-data:
		assert.Equal(t, zk.EventNodeCreated, ev.Type)
	default:
		t.Error("the data watch of the path did not fire")
	}
	assert.Empty(t, child, "a creation fired the child watch")
	want := []watches.Event{{Type: watches.NodeCreated, Path: "/a/b"}}
	assert.Equal(t, want, own.events)
	assert.Equal(t, want, above.events)
	assert.Equal(t, want, root.events)
	assert.Empty(t, parent.events, "the parent's persistent watch was told a child's creation")
}

func TestTable_ChildrenChangedReachesThePersistentWatchAlone(t *testing.T) {
	tab := newTable()
	persistent, recursive := watcher("/a", watches.Persistent), watcher("/a", watches.Recursive)
	tab.AddPersistent(persistent)
	tab.AddPersistent(recursive)

	require.NoError(t, tab.Notify(notification(zk.EventNodeChildrenChanged, "/a")))

	assert.Equal(t, []watches.Event{{Type: watches.NodeChildrenChanged, Path: "/a"}}, persistent.events)
	assert.Empty(t, recursive.events)
}

func TestTable_ANewSessionEndsTheOneShotWatchesAndSetsThePersistentOnesAgain(t *testing.T) {
	tab := newTable()
	tab.Connected(1)
	oneShot := tab.AddOneShot("/a", watches.ExistWatch)
	w := watcher("/b", watches.Recursive)
	tab.AddPersistent(w)

	rs := tab.Connected(2)

	ev, ok := <-oneShot
	require.True(t, ok)
	assert.Equal(t, zk.EventNotWatching, ev.Type)
	assert.ErrorIs(t, ev.Err, zk.ErrSessionExpired)
	assert.False(t, rs.SameSession)
	assert.Empty(t, rs.Exist)
	assert.Equal(t, []string{"/b"}, rs.Recursive)
	assert.Equal(t, []watches.Subscriber{w}, rs.Watchers)
	assert.Equal(t, []watches.Event{{Type: watches.Interrupted, Path: "/b"}}, w.events)
	assert.False(t, tab.Adoptable(w.key, false), "a Watch was adopted before the restore was answered")
	tab.Back()
	assert.True(t, tab.Adoptable(w.key, false))
}

func TestTable_CloseEndsEveryPersistentWatchWithTheErrorGiven(t *testing.T) {
	tab := newTable()
	w := watcher("/a", watches.Persistent)
	tab.AddPersistent(w)
	closed := errors.New("closed")

	tab.Close(closed)

	assert.ErrorIs(t, w.err, closed)
	assert.False(t, tab.Watched("/a"))
}
