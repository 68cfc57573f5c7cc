package mutex

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOwnerTable_KeepsEachOwnersStateAndDropsAnEmptyMap(t *testing.T) {
	var tab ownerTable
	a, b, c := goroutineOwner(1), "b", goroutineOwner(3)
	h := &Hold{}

	_, ok := tab.get(a)
	assert.False(t, ok)
	assert.False(t, tab.held())

	tab.set(a, ownerState{})
	tab.set(b, ownerState{hold: h})
	tab.set(c, ownerState{})
	assert.NotNil(t, tab.more, "a second owner needs the map")
	assert.True(t, tab.held())
	s, ok := tab.get(b)
	assert.True(t, ok)
	assert.Same(t, h, s.hold)

	tab.remove(a) // frees the inline slot; b and c stay in the map
	_, ok = tab.get(a)
	assert.False(t, ok)
	tab.set(b, ownerState{}) // updated where it is, not copied into the free slot
	s, ok = tab.get(b)
	assert.True(t, ok)
	assert.Nil(t, s.hold)
	assert.Nil(t, tab.first)
	assert.False(t, tab.held())

	tab.set(a, ownerState{hold: h}) // a new owner takes the free slot
	assert.Equal(t, any(a), tab.first)
	tab.remove(b)
	tab.remove(c)
	assert.Nil(t, tab.more, "an empty map is dropped")
	s, ok = tab.get(a)
	assert.True(t, ok)
	assert.Same(t, h, s.hold)
	tab.remove(a)
	assert.Equal(t, ownerTable{}, tab)
}
