package rwlock

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/recipes/mutex/lockdriver"
)

func node(uuidDigit byte, name string, seq int) string {
	u := fmt.Sprintf("%[1]c%[1]c%[1]c%[1]c%[1]c%[1]c%[1]c%[1]c-%[1]c%[1]c%[1]c%[1]c-4%[1]c%[1]c%[1]c-8%[1]c%[1]c%[1]c-%[1]c%[1]c%[1]c%[1]c%[1]c%[1]c%[1]c%[1]c%[1]c%[1]c%[1]c%[1]c", uuidDigit)
	return fmt.Sprintf("_c_%s-%s%010d", u, name, seq)
}

func TestDrivers_Decide(t *testing.T) {
	// The protection ids sort against the sequence, so that a driver that
	// ordered by them would get every case wrong.
	var (
		r1 = node('f', readName, 1)
		r2 = node('e', readName, 2)
		w3 = node('d', writeName, 3)
		r4 = node('c', readName, 4)
		w5 = node('b', writeName, 5)
		r6 = node('a', readName, 6)
		w7 = node('9', writeName, 7)
		w8 = node('8', writeName, 8)
		r9 = node('7', readName, 9)
		// A downgraded read node at w3's place.
		d3 = node('0', readName, 3)
	)
	all := []string{r9, w8, w7, r6, w5, r4, w3, r2, r1}
	tests := []struct {
		name     string
		driver   lockdriver.Driver
		children []string
		ours     string
		want     lockdriver.Decision
	}{
		{"readers before any writer hold", readDriver{}, all, r2, lockdriver.Decision{Held: true}},
		{"a reader behind a writer watches it and holds when it goes", readDriver{}, all, r4, lockdriver.Decision{Watch: []string{w3}, HeldWhenGone: true}},
		{"a reader behind two writers watches both", readDriver{}, all, r6, lockdriver.Decision{Watch: []string{w3, w5}, HeldWhenGone: true}},
		{"a reader behind four writers watches the nearest two and looks again", readDriver{}, all, r9, lockdriver.Decision{Watch: []string{w7, w8}}},
		{"a writer at the head holds", writeDriver{}, []string{w3, r4}, w3, lockdriver.Decision{Held: true}},
		{"a writer behind readers holds when they go", writeDriver{}, []string{w3, r2, r1}, w3, lockdriver.Decision{Watch: []string{r1, r2}, HeldWhenGone: true}},
		{"a writer behind a writer looks again when it goes", writeDriver{}, all, w5, lockdriver.Decision{Watch: []string{w3, r4}}},
		{"a writer deep in the queue watches the two nodes in front", writeDriver{}, all, w8, lockdriver.Decision{Watch: []string{r6, w7}}},
		{"a downgraded read node holds beside its writer", readDriver{}, []string{w5, d3, w3}, d3, lockdriver.Decision{Held: true}},
		{"a writer behind a downgraded reader waits for it", writeDriver{}, []string{w5, d3}, w5, lockdriver.Decision{Watch: []string{d3}, HeldWhenGone: true}},
		{"a reader behind a downgraded reader holds", readDriver{}, []string{r4, d3}, r4, lockdriver.Decision{Held: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.driver.Decide(tt.children, tt.ours, "ignored")
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDrivers_OwnNodeMissingOrWithoutItsName(t *testing.T) {
	r := node('1', readName, 1)
	w := node('2', writeName, 2)
	for d, missing := range map[lockdriver.Driver]string{readDriver{}: node('3', readName, 3), writeDriver{}: node('3', writeName, 3)} {
		_, err := d.Decide([]string{r, w}, missing, "")
		require.ErrorIs(t, err, lockdriver.ErrNodeMissing)
		_, err = d.Decide(nil, w, "")
		require.Error(t, err)
	}
	_, err := readDriver{}.Decide([]string{w}, w, "")
	require.ErrorIs(t, err, ErrInvalidArgument, "a write node is never judged as a reader")
	_, err = writeDriver{}.Decide([]string{r}, r, "")
	require.ErrorIs(t, err, ErrInvalidArgument, "a read node is never judged as a writer")
	foreign := "_c_00000000-0000-4000-8000-000000000000-lock-0000000001"
	_, err = writeDriver{}.Decide([]string{foreign}, foreign, "")
	require.ErrorIs(t, err, ErrInvalidArgument)
}

// The queue interleaves readers and writers by sequence, whatever the
// protection ids, as Curator's driver sorts it; equal keys (a downgraded
// read node and its writer) keep the order of the listing, as Curator's
// stable sort keeps them.
func TestDrivers_SortAsCurator(t *testing.T) {
	for _, tie := range [][2]string{
		{node('0', writeName, 3), node('9', readName, 3)},
		{node('9', readName, 3), node('0', writeName, 3)},
	} {
		children := []string{"foreign", tie[0], node('f', readName, 1), tie[1], "__READ__0000000002"}
		readDriver{}.Sort(children, "")
		assert.Equal(t, []string{node('f', readName, 1), "__READ__0000000002", tie[0], tie[1], "foreign"}, children)
	}
}

// Decide selects rather than sorts; it must agree with a full sort of the
// listing, in every order the server may list it. And whatever the queue,
// a waiter watches only nodes in front of it, so no wait cycle can form,
// and it holds on their deletion only when they are all that can stand in
// its way.
func TestDrivers_DecideAgreesWithFullSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 2000 {
		n := 1 + rng.IntN(12)
		var children []string
		for seq := range n {
			name := readName
			if rng.IntN(3) == 0 {
				name = writeName
			}
			children = append(children, node("0123456789abcdef"[rng.IntN(16)], name, seq))
			if name == writeName && rng.IntN(4) == 0 { // its downgraded read node
				children = append(children, node("0123456789abcdef"[rng.IntN(16)], readName, seq))
			}
		}
		if rng.IntN(4) == 0 {
			children = append(children, "foreign")
		}
		rng.Shuffle(len(children), func(i, j int) { children[i], children[j] = children[j], children[i] })
		ours := children[rng.IntN(len(children))]
		if ours == "foreign" {
			continue
		}
		// The queue as a waiter sees it: by key, ties by name.
		sorted := slices.Clone(children)
		slices.SortFunc(sorted, func(a, b string) int {
			if c := strings.Compare(sortKey(a), sortKey(b)); c != 0 {
				return c
			}
			return strings.Compare(a, b)
		})
		i := slices.Index(sorted, ours)
		var d lockdriver.Driver = readDriver{}
		if isWriter(ours) {
			d = writeDriver{}
		}
		got, err := d.Decide(children, ours, "")
		require.NoError(t, err)
		want := reference(sorted[:i], isWriter(ours))
		require.Equal(t, want, got, "round %d: ours %s in %v", round, ours, sorted)
		for _, w := range got.Watch {
			require.Less(t, slices.Index(sorted, w), i, "round %d: watches a node behind it", round)
		}
	}
}

// reference is the rule over the nodes in front, in queue order.
func reference(inFront []string, writer bool) lockdriver.Decision {
	var writers []string
	for _, n := range inFront {
		if isWriter(n) {
			writers = append(writers, n)
		}
	}
	blockers := writers
	if writer {
		blockers = inFront
	}
	if len(blockers) == 0 {
		return lockdriver.Decision{Held: true}
	}
	watch := blockers[max(0, len(blockers)-handOffDepth):]
	return lockdriver.Decision{Watch: watch, HeldWhenGone: len(blockers) <= handOffDepth && (!writer || len(writers) == 0)}
}
