package cache

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTree_RemoveSubtreeGoesDeepestFirstAndUnlinksFromTheParent(t *testing.T) {
	tr := newTree()
	for _, p := range []string{"/r", "/r/a", "/r/a/x", "/r/a/x/y", "/r/b"} {
		tr.put("/r", p, &node{})
	}
	assert.Equal(t, []string{"a", "b"}, tr.children("/r"))
	gone := tr.removeSubtree("/r", "/r/a")
	var paths []string
	for _, e := range gone {
		paths = append(paths, e.Path)
	}
	assert.Equal(t, []string{"/r/a/x/y", "/r/a/x", "/r/a"}, paths)
	assert.Equal(t, []string{"b"}, tr.children("/r"))
	assert.Len(t, tr.nodes, 2)
	assert.Empty(t, tr.kids["/r/a"])
}

func TestTree_PathMaths(t *testing.T) {
	for _, c := range []struct {
		root, p string
		depth   int
		within  bool
	}{
		{"/r", "/r", 0, true},
		{"/r", "/r/a", 1, true},
		{"/r", "/r/a/b", 2, true},
		{"/r", "/ra", 0, false},
		{"/", "/", 0, true},
		{"/", "/a", 1, true},
		{"/", "/a/b", 2, true},
	} {
		assert.Equal(t, c.within, within(c.root, c.p), "%s under %s", c.p, c.root)
		if c.within {
			assert.Equal(t, c.depth, depth(c.root, c.p), "%s under %s", c.p, c.root)
		}
	}
}
