package cache_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// A loaded cache of 10,101 nodes of 100-byte values (100 parents of 100
// children) adds at most 200 bytes of live heap per node beyond the
// values, everything it keeps of the load included (issue 42's goal).
func TestCache_ANodeCostsAtMost200BytesBeyondItsValue(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	root := zktest.UniquePath(t)
	makeWideTree(t, c, root, 100, 100)
	perNode, overValue := loadHeap(t, c, root, 100*101+1)
	t.Logf("%.1f bytes of heap per node, %.1f beyond its value", perNode, overValue)
	assert.LessOrEqual(t, overValue, 200.0, "live heap per node beyond its value, in bytes")
}
