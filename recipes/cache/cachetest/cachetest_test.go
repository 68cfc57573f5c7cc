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

func statAt(mzxid int64) zk.Stat { return zk.Stat{Mzxid: mzxid} }
