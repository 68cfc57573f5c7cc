package leader

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/recipes/mutex/lockdriver"
)

func TestElectionDriver_JudgesAsCuratorsLeaderLatch(t *testing.T) {
	const (
		a = "_c_00000000-0000-0000-0000-00000000000a-latch-0000000001"
		b = "_c_00000000-0000-0000-0000-00000000000b-latch-0000000002"
		c = "_c_00000000-0000-0000-0000-00000000000c-latch-0000000003"
		// A protection id that sorts first must not decide the order.
		d = "_c_00000000-0000-0000-0000-000000000000-latch-0000000004"
		// Curator sorts a name without "latch-" by its whole name: after
		// every sequence number.
		odd = "zz-other"
	)
	for _, tc := range []struct {
		name     string
		children []string
		ours     string
		want     lockdriver.Decision
	}{
		{"alone", []string{a}, a, lockdriver.Decision{Held: true}},
		{"first of three, listed out of order", []string{c, a, b}, a, lockdriver.Decision{Held: true}},
		{"next in line", []string{c, b, a}, b, lockdriver.Decision{Watch: []string{a}, HeldWhenGone: true}},
		{"third: watches only the node in front", []string{a, b, c}, c, lockdriver.Decision{Watch: []string{b}}},
		{"the protection id does not sort", []string{d, a, b, c}, d, lockdriver.Decision{Watch: []string{c}}},
		{"a foreign name sorts last", []string{odd, a}, a, lockdriver.Decision{Held: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := electionDriver{}.Decide(tc.children, tc.ours, "latch-")
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	_, err := electionDriver{}.Decide([]string{a}, b, "latch-")
	require.ErrorIs(t, err, lockdriver.ErrNodeMissing)
}
