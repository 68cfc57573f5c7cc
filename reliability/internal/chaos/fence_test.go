package chaos

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestResource_RefusesStaleTokensAndCatchesOneTokenForTwoHolders(t *testing.T) {
	r := &Resource{Name: "ttl", Clock: NewClock()}
	assert.True(t, r.Write("a", 10))
	assert.True(t, r.Write("a", 10), "the same holder writes again")
	assert.True(t, r.Write("b", 12), "a newer holder")
	assert.False(t, r.Write("a", 10), "the stale holder is refused: fencing works")
	assert.False(t, r.Write("c", 0), "an unknown token is not written")
	assert.Empty(t, r.Violations())
	accepted, refused := r.Counts()
	assert.Equal(t, 3, accepted)
	assert.Equal(t, 1, refused)

	// A take-over that kept the token: the old holder's write is accepted
	// after the new holder's, out of order.
	assert.True(t, r.Write("d", 20))
	assert.True(t, r.Write("e", 20))
	assert.True(t, r.Write("d", 20))
	v := r.Violations()
	assert.Len(t, v, 2)
	assert.Equal(t, "stale-write", v[0].Kind)
}
