package zkpath

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// node returns a protected, sequential child name as Curator creates it.
func node(id, lockName string, seq int32) string {
	return fmt.Sprintf("_c_%s-%s%010d", id, lockName, seq)
}

func TestSortKey(t *testing.T) {
	rw := []string{ReadLockName, WriteLockName}
	cases := []struct {
		name      string
		lockNames []string
		want      string
	}{
		{node(testID, LockName, 1), []string{LockName}, "0000000001"},
		{"lock-x-lock-0000000002", []string{LockName}, "0000000002"},
		{"foreign", []string{LockName}, "foreign"},
		{"lock-", []string{LockName}, ""},
		{"x", nil, "x"},
		{"x", []string{""}, ""}, // as Java's lastIndexOf("")
		{node(testID, ReadLockName, 3), rw, "0000000003"},
		{node(testID, WriteLockName, 4), rw, "0000000004"},
		{"__READ__x__WRIT__0000000001", rw, "0000000001"},                              // both stripped, in turn
		{"__WRIT__x__READ__0000000001", rw, "0000000001"},                              // READ strip already ends it
		{"_c_" + testID + "-lock-0000000001", rw, "_c_" + testID + "-lock-0000000001"}, // foreign to the rw lock
	}
	for _, c := range cases {
		assert.Equal(t, c.want, SortKey(c.name, c.lockNames...), "SortKey(%q, %q)", c.name, c.lockNames)
	}
}

func TestSortNodes_OrdersBySequenceNotByProtectionID(t *testing.T) {
	a, b, c := "ffffffff-0000-4000-8000-000000000000", "00000000-0000-4000-8000-000000000000", testID
	names := []string{node(a, LockName, 1), node(b, LockName, 3), node(c, LockName, 2)}
	SortNodes(names, LockName)
	assert.Equal(t, []string{node(a, LockName, 1), node(c, LockName, 2), node(b, LockName, 3)}, names)
}

func TestSortNodes_ForeignChildrenSortAfterDigits(t *testing.T) {
	names := []string{"zoo", node(testID, LockName, 2), "_tmp", "lock-0000000001", "Abc", "-x"}
	SortNodes(names, LockName)
	assert.Equal(t, []string{
		"-x", // '-' sorts before digits, as in Curator: it would block the lock
		"lock-0000000001",
		node(testID, LockName, 2),
		"Abc",
		"_tmp",
		"zoo",
	}, names)
}

func TestSortNodes_LockNameTwiceUsesTheLast(t *testing.T) {
	names := []string{"lock-0000000001lock-0000000009", "lock-0000000005"}
	SortNodes(names, LockName)
	assert.Equal(t, []string{"lock-0000000005", "lock-0000000001lock-0000000009"}, names)
}

func TestSortNodes_OverflowedSequencesSortAsCuratorDoes(t *testing.T) {
	// Bytewise, '-' sorts before '0', and "-000000001" before "-2147483648":
	// not numeric order, but the order Curator's processes will agree on.
	names := []string{
		node(testID, LockName, 2147483647),
		node(testID, LockName, -2147483648),
		node(testID, LockName, 0),
		node(testID, LockName, -1),
	}
	SortNodes(names, LockName)
	assert.Equal(t, []string{
		node(testID, LockName, -1),
		node(testID, LockName, -2147483648),
		node(testID, LockName, 0),
		node(testID, LockName, 2147483647),
	}, names)
}

func TestSortNodes_RWLockEqualKeysKeepServerOrder(t *testing.T) {
	r1 := node("00000000-0000-4000-8000-000000000001", ReadLockName, 1)
	w2 := node("00000000-0000-4000-8000-000000000002", WriteLockName, 2)
	r2 := node("00000000-0000-4000-8000-000000000003", ReadLockName, 2) // read taken by the writer
	w3 := node("00000000-0000-4000-8000-000000000004", WriteLockName, 3)

	names := []string{w3, w2, r2, r1}
	SortNodes(names, ReadLockName, WriteLockName)
	assert.Equal(t, []string{r1, w2, r2, w3}, names)

	names = []string{r2, w3, r1, w2}
	SortNodes(names, ReadLockName, WriteLockName)
	assert.Equal(t, []string{r1, r2, w2, w3}, names)
}

func TestSortNodes_EmptyAndSingle(t *testing.T) {
	SortNodes(nil, LockName)
	one := []string{"x"}
	SortNodes(one, LockName)
	assert.Equal(t, []string{"x"}, one)
}

func TestSortNodes_LongListMatchesReferenceSort(t *testing.T) {
	for _, n := range []int{stackSortLen, stackSortLen + 1, 500} {
		want := make([]string, n)
		for i := range want {
			// Pairs of equal keys, so that stability matters too.
			want[i] = node(testID, LockName, int32(i/2))
		}
		rnd := rand.New(rand.NewPCG(1, uint64(n)))
		names := slices.Clone(want)
		rnd.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })

		ref := slices.Clone(names)
		slices.SortStableFunc(ref, func(a, b string) int {
			ka, kb := SortKey(a, LockName), SortKey(b, LockName)
			switch {
			case ka < kb:
				return -1
			case ka > kb:
				return 1
			}
			return 0
		})
		SortNodes(names, LockName)
		require.Equal(t, ref, names, "n=%d", n)
	}
}

func TestSortedNodes_LeavesInputAlone(t *testing.T) {
	in := []string{"lock-0000000002", "lock-0000000001"}
	out := SortedNodes(in, LockName)
	assert.Equal(t, []string{"lock-0000000001", "lock-0000000002"}, out)
	assert.Equal(t, []string{"lock-0000000002", "lock-0000000001"}, in)
	assert.Nil(t, SortedNodes(nil, LockName))
}

func BenchmarkSortNodes(b *testing.B) {
	for _, n := range []int{20, 200} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			src := make([]string, n)
			for i := range src {
				src[i] = node(NewProtectionID(), LockName, int32(i))
			}
			rand.New(rand.NewPCG(1, 2)).Shuffle(n, func(i, j int) { src[i], src[j] = src[j], src[i] })
			work := make([]string, n)
			b.ReportAllocs()
			for b.Loop() {
				copy(work, src)
				SortNodes(work, LockName)
			}
		})
	}
}
