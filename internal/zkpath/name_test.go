package zkpath

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testID is a protection id in the form Curator writes.
const testID = "53345f98-9423-4e0c-a7b5-9f819e3ec2e1"

var v4UUID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestNewProtectionID_IsRandomCanonicalV4UUID(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		id := NewProtectionID()
		require.Regexp(t, v4UUID, id)
		require.True(t, isUUID(id))
		require.False(t, seen[id], "duplicate id %s", id)
		seen[id] = true
	}
}

func TestProtectedName_RoundTrips(t *testing.T) {
	name := ProtectedName(testID, LockName)
	require.Equal(t, "_c_"+testID+"-lock-", name)
	require.Len(t, name, ProtectedPrefixLen+len(LockName))
	require.Equal(t, 40, ProtectedPrefixLen)

	// The server appends the sequence suffix; the id survives it.
	node := name + "0000000007"
	id, ok := ProtectionID(node)
	require.True(t, ok)
	assert.Equal(t, testID, id)
	assert.Equal(t, "lock-0000000007", Unprotect(node))
	assert.True(t, HasProtectionID(node, testID))

	fresh := NewProtectionID()
	id, ok = ProtectionID(ProtectedName(fresh, "x"))
	require.True(t, ok)
	assert.Equal(t, fresh, id)
}

func TestProtectedName_EmptyIDLeavesNameAlone(t *testing.T) {
	assert.Equal(t, LockName, ProtectedName("", LockName))
}

func TestProtectionID(t *testing.T) {
	upper := strings.ToUpper(testID)
	cases := []struct {
		name, id string
		ok       bool
	}{
		{"_c_" + testID + "-lock-0000000001", testID, true},
		{"_c_" + testID + "-x", testID, true},
		{"_c_" + upper + "-lock-", upper, true}, // any case, returned as found
		{"_c_" + testID + "-", "", false},       // exactly 40 chars: Curator wants more
		{"_c_" + testID + "_lock-", "", false},  // no '-' at index 39
		{"_c_" + strings.Replace(testID, "5", "g", 1) + "-lock-", "", false},
		{"_c_" + strings.Replace(testID, "-", "0", 1) + "-lock-", "", false},
		{"_c_53345f9-89423-4e0c-a7b5-9f819e3ec2e1-lock-", "", false},       // dash misplaced
		{"_c_53345f9894234e0ca7b59f819e3ec2e1-lock-0000000001", "", false}, // go-zookeeper's format
		{"_C_" + testID + "-lock-", "", false},
		{"x_c_" + testID + "-lock-", "", false},
		{"lock-0000000001", "", false},
		{"_c_", "", false},
		{"", "", false},
	}
	for _, c := range cases {
		id, ok := ProtectionID(c.name)
		assert.Equal(t, c.ok, ok, "%q", c.name)
		assert.Equal(t, c.id, id, "%q", c.name)
		if ok {
			assert.Equal(t, c.name[40:], Unprotect(c.name), "%q", c.name)
		} else {
			assert.Equal(t, c.name, Unprotect(c.name), "%q", c.name)
		}
	}
}

func TestHasProtectionID(t *testing.T) {
	name := "_c_" + testID + "-lock-0000000001"
	assert.True(t, HasProtectionID(name, testID))
	assert.True(t, HasProtectionID("_c_"+testID+"-", testID))
	assert.False(t, HasProtectionID(name, NewProtectionID()))
	assert.False(t, HasProtectionID(name, strings.ToUpper(testID)))
	assert.False(t, HasProtectionID(name, testID[:35]))
	assert.False(t, HasProtectionID(name, ""))
	assert.False(t, HasProtectionID("_c_"+testID, testID))
	assert.False(t, HasProtectionID("lock-0000000001", testID))
}

func TestParseNode(t *testing.T) {
	p := "_c_" + testID + "-"
	cases := []struct {
		name      string
		lockNames []string
		want      NodeName
	}{
		{p + "lock-0000000042", []string{LockName},
			NodeName{ProtectionID: testID, LockName: LockName, Sequence: 42, HasSequence: true}},
		{"lock-0000000007", []string{LockName},
			NodeName{LockName: LockName, Sequence: 7, HasSequence: true}},
		{p + "lock-lock-0000000003", []string{LockName}, // lock name twice: the last counts
			NodeName{ProtectionID: testID, LockName: LockName, Sequence: 3, HasSequence: true}},
		{"lock-0000000001lock-x", []string{LockName},
			NodeName{LockName: LockName}},
		{p + "lock--2147483648", []string{LockName}, // overflowed counter
			NodeName{ProtectionID: testID, LockName: LockName, Sequence: -2147483648, HasSequence: true}},
		{"lock--000000001", []string{LockName},
			NodeName{LockName: LockName, Sequence: -1, HasSequence: true}},
		{"lock--1000000000", []string{LockName}, // the lock name settles the sign
			NodeName{LockName: LockName, Sequence: -1000000000, HasSequence: true}},
		{"lock-2147483647", []string{LockName},
			NodeName{LockName: LockName, Sequence: 2147483647, HasSequence: true}},
		{"lock-2147483648", []string{LockName}, NodeName{LockName: LockName}},
		{"lock-00000000001", []string{LockName}, NodeName{LockName: LockName}},
		{"lock-000000001", []string{LockName}, NodeName{LockName: LockName}},
		{"lock--0000000001", []string{LockName}, NodeName{LockName: LockName}},
		{"lock--000000000", []string{LockName}, NodeName{LockName: LockName}},
		{"lock-+000000001", []string{LockName}, NodeName{LockName: LockName}},
		{"lock-", []string{LockName}, NodeName{LockName: LockName}},
		{p + "__WRIT__0000000004", []string{ReadLockName, WriteLockName},
			NodeName{ProtectionID: testID, LockName: WriteLockName, Sequence: 4, HasSequence: true}},
		{p + "__READ__0000000005", []string{ReadLockName, WriteLockName},
			NodeName{ProtectionID: testID, LockName: ReadLockName, Sequence: 5, HasSequence: true}},
		{"__READ__x__WRIT__0000000001", []string{ReadLockName, WriteLockName}, // first lock name found wins
			NodeName{LockName: ReadLockName}},
		{"foreign", []string{LockName}, NodeName{}},
		{"foreign0000000005", []string{LockName}, // no lock name: SequenceOf
			NodeName{Sequence: 5, HasSequence: true}},
		{"latch-0000000009", nil, NodeName{Sequence: 9, HasSequence: true}},
		{"", []string{LockName}, NodeName{}},
	}
	for _, c := range cases {
		c.want.Raw = c.name
		assert.Equal(t, c.want, ParseNode(c.name, c.lockNames...), "ParseNode(%q, %q)", c.name, c.lockNames)
	}
}

func TestSequenceOf(t *testing.T) {
	cases := []struct {
		name string
		seq  int32
		ok   bool
	}{
		{"0000000000", 0, true},
		{"x0000000001", 1, true},
		{"_c_" + testID + "-lock-0000000123", 123, true},
		{"lock-2147483647", 2147483647, true},
		{"lock--2147483648", -2147483648, true},
		{"lock-2147483648", -2147483648, true}, // too big for ten digits, so "lock" + "-2147483648"
		{"x-999999999", -999999999, true},
		{"x--000000001", -1, true},
		{"x-1000000000", 1000000000, true}, // ambiguous: the non-negative reading wins
		{"x-9999999999", 0, false},
		{"000000001", 0, false},
		{"x000000001", 0, false},
		{"x-000000000", 0, false},
		{"lock-00000000a1", 0, false},
		{"", 0, false},
	}
	for _, c := range cases {
		seq, ok := SequenceOf(c.name)
		assert.Equal(t, c.ok, ok, "%q", c.name)
		assert.Equal(t, c.seq, seq, "%q", c.name)
	}
}

func TestLockNames_MatchCurator(t *testing.T) {
	assert.Equal(t, "lock-", LockName)
	assert.Equal(t, "lease-", LeaseName)
	assert.Equal(t, "latch-", LatchName)
	assert.Equal(t, "__READ__", ReadLockName)
	assert.Equal(t, "__WRIT__", WriteLockName)
	assert.Equal(t, "__REVOKE__", RevokeMessage)
	assert.Len(t, ReadLockName, len(WriteLockName))
}
