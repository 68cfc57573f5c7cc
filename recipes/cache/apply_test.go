package cache

import (
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
)

// The reads of a round go at once, in no known order: here a parent's
// list made after its child was created again, and the child's own read
// made before, when it was missing. With one-shot watches nothing else
// tells the child's creation (the parent's child watch was set again by
// that list), so applying the list first, while the cache still held
// the child, and the child's removal after, left it out of the cache for
// good. The list comes last and names the child as one to read.
func TestApply_AListComesAfterTheReadsOfItsRound(t *testing.T) {
	c := &Cache{path: "/r", opts: options{maxDepth: -1}, tree: newStore("/r"), in: newInbox()}
	c.tree.put("/r", &node{stat: zk.Stat{Czxid: 1, Pzxid: 2, NumChildren: 1}})
	c.tree.put("/r/a", &node{stat: zk.Stat{Czxid: 2, Pzxid: 2}})
	var told []string
	c.listeners.Add(func(ev Event) { told = append(told, ev.Type.String()+" "+ev.Path) })
	l := &loop{c: c, src: newOneShotSource(c), loaded: true}
	l.apply([]result{
		{request: request{path: "/r", want: wantList}, listed: true, children: []string{"a"}},
		{request: request{path: "/r/a", want: wantData}}, // missing, before its creation
	})
	assert.Equal(t, []string{"deleted /r/a"}, told)
	assert.NotZero(t, c.in.takeReads()["/r/a"]&wantData, "the child the list names is read again")
}
