package lockdriver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

func TestStandardDriver_Decide(t *testing.T) {
	const (
		a = "_c_11111111-1111-4111-8111-111111111111-lock-0000000001"
		b = "_c_22222222-2222-4222-8222-222222222222-lock-0000000002"
		c = "_c_33333333-3333-4333-8333-333333333333-lock-0000000003"
		d = "_c_44444444-4444-4444-8444-444444444444-lock-0000000004"
	)
	tests := []struct {
		name     string
		leases   int
		children []string
		ours     string
		want     Decision
	}{
		{"alone holds", 1, []string{a}, a, Decision{Held: true}},
		{"head holds", 1, []string{a, b, c}, a, Decision{Held: true}},
		{"second watches the head and holds when it goes", 1, []string{a, b, c}, b, Decision{Watch: []string{a}, HeldWhenGone: true}},
		{"third watches both in front and holds when they are gone", 1, []string{a, b, c, d}, c, Decision{Watch: []string{a, b}, HeldWhenGone: true}},
		{"fourth watches the node two in front and looks again", 1, []string{a, b, c, d}, d, Decision{Watch: []string{b, c}}},
		{"within two leases holds", 2, []string{a, b, c, d}, b, Decision{Held: true}},
		{"third of two leases watches the head", 2, []string{a, b, c, d}, c, Decision{Watch: []string{a}, HeldWhenGone: true}},
		{"fourth of two leases watches two in front", 2, []string{a, b, c, d}, d, Decision{Watch: []string{b}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := StandardDriver(tt.leases).Decide(tt.children, tt.ours, zkpath.LockName)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestStandardDriver_OwnNodeMissing(t *testing.T) {
	_, err := StandardDriver(1).Decide([]string{"_c_x-lock-0000000001"}, "_c_y-lock-0000000002", zkpath.LockName)
	require.ErrorIs(t, err, ErrNodeMissing)
	_, err = StandardDriver(1).Decide(nil, "_c_y-lock-0000000002", zkpath.LockName)
	require.ErrorIs(t, err, ErrNodeMissing)
}

// Curator sorts by the sequence after the lock name, whatever the
// protection prefix, and puts foreign children (no lock name) last.
func TestStandardDriver_SortsAsCurator(t *testing.T) {
	children := []string{
		"foreign",
		"_c_ffffffff-ffff-4fff-8fff-ffffffffffff-lock-0000000007",
		"_c_00000000-0000-4000-8000-000000000000-lock-0000000009",
		"lock-0000000008", // go-zookeeper-style or unprotected
	}
	StandardDriver(1).Sort(children, zkpath.LockName)
	assert.Equal(t, []string{
		"_c_ffffffff-ffff-4fff-8fff-ffffffffffff-lock-0000000007",
		"lock-0000000008",
		"_c_00000000-0000-4000-8000-000000000000-lock-0000000009",
		"foreign",
	}, children)
}

// Decide selects the nodes in front rather than sorting them; it must agree
// with a full sort of the listing, ties and foreign names included.
func TestStandardDriver_DecideAgreesWithFullSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 500 {
		n := 1 + rng.IntN(40)
		children := make([]string, n)
		for j := range children {
			switch rng.IntN(8) {
			case 0:
				children[j] = fmt.Sprintf("foreign-%d", j)
			default: // few distinct sequences, so that keys tie
				children[j] = fmt.Sprintf("_c_%04d-lock-%010d", j, rng.IntN(n))
			}
		}
		ours := children[rng.IntN(n)]
		for _, leases := range []int{1, 2, 3, 5} {
			d := StandardDriver(leases)
			sorted := slices.Clone(children)
			d.Sort(sorted, zkpath.LockName)
			want := referenceDecision(sorted, slices.Index(sorted, ours), leases)
			got, err := d.Decide(children, ours, zkpath.LockName)
			if !strings.Contains(ours, zkpath.LockName) {
				require.ErrorIs(t, err, ErrInvalidArgument, "a foreign node never holds")
				continue
			}
			require.NoError(t, err)
			require.Equal(t, want, got, "round %d, %d leases, ours %s in %v", round, leases, ours, children)
		}
	}
}

// referenceDecision is the standard driver's rule over a sorted queue in
// which ours is at index i.
func referenceDecision(sorted []string, i, leases int) Decision {
	switch {
	case i < leases:
		return Decision{Held: true}
	case leases > 1:
		return Decision{Watch: sorted[i-leases : i-leases+1], HeldWhenGone: i == leases}
	case i <= handOffDepth:
		return Decision{Watch: sorted[:i], HeldWhenGone: true}
	}
	return Decision{Watch: sorted[i-handOffDepth : i]}
}

// The queue is ordered by the lock's own name: with any other name, the
// standard driver would order it by the random protection ids.
func TestStandardDriver_SortsByTheLocksOwnName(t *testing.T) {
	const (
		holder   = "_c_ffffffff-ffff-4fff-8fff-ffffffffffff-foo-0000000001"
		newcomer = "_c_00000000-0000-4000-8000-000000000000-foo-0000000002"
	)
	children := []string{newcomer, holder}
	got, err := StandardDriver(1).Decide(children, newcomer, "foo-")
	require.NoError(t, err)
	assert.Equal(t, Decision{Watch: []string{holder}, HeldWhenGone: true}, got)
	StandardDriver(1).Sort(children, "foo-")
	assert.Equal(t, []string{holder, newcomer}, children)
}

// A node of ours that carries none of the lock's names is never judged to
// hold, even alone in the directory.
func TestStandardDriver_OwnNodeWithoutTheLockNameNeverHolds(t *testing.T) {
	const ours = "_c_00000000-0000-4000-8000-000000000000-foo-0000000001"
	_, err := StandardDriver(1).Decide([]string{ours}, ours, zkpath.LockName)
	require.ErrorIs(t, err, ErrInvalidArgument)
}

// Equal keys are judged by name, whatever order the server listed them in,
// so two of them never both hold; a view (Sort) keeps the server's order
// for them, as Curator's stable sort does.
func TestStandardDriver_EqualKeysJudgedByName(t *testing.T) {
	const (
		a = "_c_11111111-1111-4111-8111-111111111111-lock-0000000005"
		b = "_c_22222222-2222-4222-8222-222222222222-lock-0000000005"
	)
	for _, children := range [][]string{{a, b}, {b, a}} {
		got, err := StandardDriver(1).Decide(children, b, zkpath.LockName)
		require.NoError(t, err)
		assert.Equal(t, Decision{Watch: []string{a}, HeldWhenGone: true}, got)
		got, err = StandardDriver(1).Decide(children, a, zkpath.LockName)
		require.NoError(t, err)
		assert.True(t, got.Held)
		sorted := slices.Clone(children)
		StandardDriver(1).Sort(sorted, zkpath.LockName)
		assert.Equal(t, children, sorted)
	}
}
