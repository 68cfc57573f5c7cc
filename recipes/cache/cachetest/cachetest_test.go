package cachetest_test

import (
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"

	"github.com/zkrecipes/zkrecipes/recipes/cache"
	"github.com/zkrecipes/zkrecipes/recipes/cache/cachetest"
)

func TestSequence_CatchesWrongEvents(t *testing.T) {
	seq := cachetest.NewSequence("/r")
	l := seq.Listener()
	l(cache.Event{Type: cache.Changed, Path: "/r"})
	l(cache.Event{Type: cache.Created, Path: "/r/a"})
	l(cache.Event{Type: cache.Created, Path: "/r"})
	l(cache.Event{Type: cache.Created, Path: "/r"})
	assert.Len(t, seq.Violations(), 3, "a change of nothing, a child before its parent, a create of a held node")
}

func TestSequence_AcceptsAValidHistory(t *testing.T) {
	seq := cachetest.NewSequence("/r")
	l := seq.Listener()
	for _, ev := range []cache.Event{
		{Type: cache.Created, Path: "/r"},
		{Type: cache.Created, Path: "/r/a", Entry: cache.Entry{Path: "/r/a"}},
		{Type: cache.Initialized},
		{Type: cache.Changed, Path: "/r/a", Entry: cache.Entry{Path: "/r/a", Stat: statAt(5)}},
		{Type: cache.Deleted, Path: "/r/a", Old: cache.Entry{Path: "/r/a", Stat: statAt(5)}},
	} {
		l(ev)
	}
	assert.Empty(t, seq.Violations())
	assert.Equal(t, 2, seq.Count(cache.Created))
	assert.Len(t, seq.Held(), 1)
}

// A Deleted the server never made shows once the incarnation told
// deleted comes back: each event alone looks valid.
func TestSequence_CatchesADeletedOfAnIncarnationThatComesBack(t *testing.T) {
	seq := cachetest.NewSequence("/r")
	l := seq.Listener()
	parent := func(czxid int64) cache.Entry {
		return cache.Entry{Path: "/r/a", Stat: zk.Stat{Czxid: czxid, Mzxid: czxid}}
	}
	child := func(czxid int64) cache.Entry {
		return cache.Entry{Path: "/r/a/x", Stat: zk.Stat{Czxid: czxid, Mzxid: czxid}}
	}
	for _, ev := range []cache.Event{
		{Type: cache.Created, Path: "/r"},
		{Type: cache.Created, Path: "/r/a", Entry: parent(2)},
		{Type: cache.Created, Path: "/r/a/x", Entry: child(3)},
		{Type: cache.Deleted, Path: "/r/a/x", Old: child(3)},
		{Type: cache.Created, Path: "/r/a/x", Entry: child(9)}, // under its parent's old incarnation
		{Type: cache.Deleted, Path: "/r/a/x", Old: child(9)},   // a lie: it lives on
		{Type: cache.Deleted, Path: "/r/a", Old: parent(2)},
		{Type: cache.Created, Path: "/r/a", Entry: parent(9)},
		{Type: cache.Created, Path: "/r/a/x", Entry: child(9)},
	} {
		l(ev)
	}
	assert.Len(t, seq.Violations(), 1, "the child's incarnation of czxid 9 created after its Deleted: %v", seq.Violations())
}

func TestSequence_CatchesEventsOfTheWrongIncarnation(t *testing.T) {
	entry := func(p string, czxid, mzxid int64) cache.Entry {
		return cache.Entry{Path: p, Stat: zk.Stat{Czxid: czxid, Mzxid: mzxid}}
	}
	held := []cache.Event{
		{Type: cache.Created, Path: "/r", Entry: entry("/r", 1, 1)},
		{Type: cache.Created, Path: "/r/a", Entry: entry("/r/a", 5, 5)},
	}
	for name, ev := range map[string]cache.Event{
		"a child older than its parent":   {Type: cache.Created, Path: "/r/a/x", Entry: entry("/r/a/x", 4, 4)},
		"a change to another incarnation": {Type: cache.Changed, Path: "/r/a", Entry: entry("/r/a", 7, 7), Old: entry("/r/a", 5, 5)},
		"a delete of another incarnation": {Type: cache.Deleted, Path: "/r/a", Old: entry("/r/a", 3, 3)},
	} {
		seq := cachetest.NewSequence("/r")
		l := seq.Listener()
		for _, h := range held {
			l(h)
		}
		l(ev)
		assert.Len(t, seq.Violations(), 1, name)
	}
}

func statAt(mzxid int64) zk.Stat { return zk.Stat{Mzxid: mzxid} }
