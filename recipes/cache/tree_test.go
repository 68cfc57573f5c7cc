package cache

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// putAll stores a node at each path, in order.
func putAll(t *testing.T, tr *tree, paths ...string) {
	t.Helper()
	for _, p := range paths {
		require.True(t, tr.put(p, &node{data: []byte(p)}), "put %s", p)
	}
}

// entryPaths returns the paths of es.
func entryPaths(es []Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Path)
	}
	return out
}

func TestTree_RemoveGoesDeepestFirstAndUnlinksFromTheParent(t *testing.T) {
	tr := newTree("/r")
	putAll(t, tr, "/r", "/r/a", "/r/a/x", "/r/a/x/y", "/r/b")
	assert.Equal(t, []string{"a", "b"}, tr.children(tr.top))
	gone := tr.remove("/r/a")
	assert.Equal(t, []string{"/r/a/x/y", "/r/a/x", "/r/a"}, entryPaths(gone))
	assert.Equal(t, []string{"/r/a/x/y", "/r/a/x", "/r/a"}, []string{string(gone[0].Data), string(gone[1].Data), string(gone[2].Data)})
	assert.Equal(t, []string{"b"}, tr.children(tr.top))
	assert.Equal(t, 2, tr.size)
	assert.Len(t, tr.kids, 1, "only the root has children left")
	assert.Nil(t, tr.find("/r/a/x"))
	assert.Nil(t, tr.remove("/r/a"), "gone already")
}

func TestTree_RemovingTheRootEmptiesIt(t *testing.T) {
	tr := newTree("/r")
	putAll(t, tr, "/r", "/r/a", "/r/a/x")
	assert.Equal(t, []string{"/r/a/x", "/r/a", "/r"}, entryPaths(tr.remove("/r")))
	assert.Zero(t, tr.size)
	assert.Empty(t, tr.kids)
	assert.Nil(t, tr.find("/r"))
	assert.Empty(t, tr.paths())
}

func TestTree_FindsOnlyTheCanonicalPathsOfCachedNodes(t *testing.T) {
	for _, root := range []string{"/r", "/"} {
		tr := newTree(root)
		sub := root
		if root == "/" {
			sub = ""
		}
		putAll(t, tr, root, sub+"/a", sub+"/a/b")
		for _, p := range []string{root, sub + "/a", sub + "/a/b"} {
			if n := tr.find(p); assert.NotNil(t, n, "%s under %s", p, root) {
				assert.Equal(t, p, string(n.data))
			}
		}
		for _, p := range []string{sub + "/a/", sub + "//a", sub + "/a//b", sub + "/b", sub + "/a/b/c", sub + "/ab", "", "a", "/r2", "/x/a"} {
			if p != root {
				assert.Nil(t, tr.find(p), "%q under %s", p, root)
			}
		}
	}
}

func TestTree_ANodePutAgainKeepsItsChildren(t *testing.T) {
	tr := newTree("/r")
	putAll(t, tr, "/r", "/r/a", "/r/a/x")
	require.True(t, tr.put("/r/a", &node{data: []byte("again")}))
	require.True(t, tr.put("/r", &node{data: []byte("root again")}))
	assert.Equal(t, 3, tr.size)
	assert.Equal(t, "again", string(tr.find("/r/a").data))
	assert.Equal(t, "root again", string(tr.find("/r").data))
	assert.NotNil(t, tr.find("/r/a/x"))
	assert.Len(t, tr.kids, 2)
}

func TestTree_ANodeWhoseParentIsNotCachedIsNotStored(t *testing.T) {
	tr := newTree("/r")
	assert.False(t, tr.put("/r/a", &node{}), "no root")
	putAll(t, tr, "/r")
	assert.False(t, tr.put("/r/a/x", &node{}))
	assert.Equal(t, 1, tr.size)
}

func TestTree_PathsAreBuiltForEveryNode(t *testing.T) {
	for _, root := range []string{"/r/s", "/"} {
		tr := newTree(root)
		sub := root
		if root == "/" {
			sub = ""
		}
		want := []string{root, sub + "/a", sub + "/a/x", sub + "/a/x/yy", sub + "/a-b", sub + "/b"}
		putAll(t, tr, want...)
		got := tr.paths()
		slices.Sort(got)
		slices.Sort(want)
		assert.Equal(t, want, got)
		tr.walk(func(p string, n *node) { assert.Equal(t, p, string(n.data)) })
	}
}

// An index is a sorted slice up to maxSorted children, a map beyond, and
// a slice again once half of that is left; the names come sorted either way.
func TestTree_AWideParentKeepsItsChildrenInAMapAndBackInASlice(t *testing.T) {
	tr := newTree("/r")
	putAll(t, tr, "/r")
	var names []string
	for i := range maxSorted + 1 {
		names = append(names, fmt.Sprintf("n%05d", (i*7919)%(maxSorted+1)))
		putAll(t, tr, "/r/"+names[i])
	}
	slices.Sort(names)
	x := tr.kids[tr.top]
	require.NotNil(t, x.byName)
	assert.Nil(t, x.sorted)
	assert.Equal(t, names, tr.children(tr.top))
	for _, name := range names[:maxSorted/2+1] {
		require.Len(t, tr.remove("/r/"+name), 1)
	}
	assert.Nil(t, x.byName)
	assert.Equal(t, names[maxSorted/2+1:], tr.children(tr.top))
	for _, name := range names[maxSorted/2+1:] {
		assert.NotNil(t, tr.find("/r/"+name), name)
	}
	assert.Equal(t, maxSorted/2+1, tr.size)
}

// A search compares the names' first 8 bytes as numbers, and the names
// only where those tie: names that share a long prefix, or are prefixes
// of others, are found and listed in order all the same.
func TestTree_NamesThatShareTheirFirstBytesAreFoundAndSorted(t *testing.T) {
	tr := newTree("/r")
	putAll(t, tr, "/r")
	names := []string{"lock-0000000010", "lock-0000000002", "a", "lock-", "ab", "a-b", "abcdefgh",
		"abcdefghi", "abcdefgh-", "lock-0000000001", "\xff\xfe", "Z", "lock-000000000"}
	for _, name := range names {
		putAll(t, tr, "/r/"+name)
	}
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	assert.Equal(t, sorted, tr.children(tr.top))
	for _, name := range names {
		if n := tr.find("/r/" + name); assert.NotNil(t, n, name) {
			assert.Equal(t, "/r/"+name, string(n.data))
		}
	}
	for _, name := range []string{"lock-0000000003", "abcdefg", "abcdefghij", "lock", "b", "\xff"} {
		assert.Nil(t, tr.find("/r/"+name), name)
	}
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
