package zkpath

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/require"
)

// javaValidatePath restates ZooKeeper's PathUtils.validatePath over UTF-16
// code units, as the Java client runs it, to cross-check Validate. Invalid
// UTF-8 decodes to U+FFFD, which Java rejects as well.
func javaValidatePath(p string) bool {
	u := utf16.Encode([]rune(p))
	switch {
	case len(u) == 0 || u[0] != '/':
		return false
	case len(u) == 1:
		return true
	case u[len(u)-1] == '/':
		return false
	}
	endsSegment := func(i int) bool { return i+1 == len(u) || u[i+1] == '/' }
	last := uint16('/')
	for i := 1; i < len(u); last, i = u[i], i+1 {
		c := u[i]
		switch {
		case c == 0:
			return false
		case c == '/' && last == '/':
			return false
		case c == '.' && last == '.':
			if u[i-2] == '/' && endsSegment(i) {
				return false
			}
		case c == '.':
			if last == '/' && endsSegment(i) {
				return false
			}
		case c <= 0x1f, c >= 0x7f && c <= 0x9f, c >= 0xd800 && c <= 0xf8ff, c >= 0xfff0:
			return false
		}
	}
	return true
}

func FuzzValidate(f *testing.F) {
	for _, p := range []string{
		"/", "", "a", "/a", "/a/b", "/a/", "//", "/a//b", "/.", "/..", "/a/./b",
		"/a/..", "/...", "/.a", "/a\x00", "/\x1f", "/\x7f", "/\u0085", "/\ue000",
		"/\ufff0", "/\U0001F600", "/\xff", "/\xed\xa0\x80", "/zk/\u00fc",
		"/locks/_c_" + testID + "-lock-0000000001",
	} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		err := Validate(p)
		require.Equal(t, javaValidatePath(p), err == nil, "Validate(%q) = %v", p, err)
		seqErr := ValidateSequential(p)
		require.Equal(t, javaValidatePath(p+"1"), seqErr == nil, "ValidateSequential(%q) = %v", p, seqErr)
		_ = ValidateName(p)
		_ = Join(p, p)
		_, _ = Split(p)
		if err != nil {
			require.ErrorIs(t, err, ErrInvalidPath)
			return
		}
		require.NoError(t, seqErr)
		if p == "/" {
			return
		}
		for _, seg := range strings.Split(p[1:], "/") {
			require.NotContains(t, []string{"", ".", ".."}, seg, "accepted %q", p)
			require.NoError(t, ValidateName(seg))
		}
		require.Equal(t, p, Join(Parent(p), Base(p)))
		require.NoError(t, Validate(Parent(p)))
	})
}

func FuzzParseNode(f *testing.F) {
	for _, name := range []string{
		"", "lock-", "lock-0000000001", "lock--2147483648", "lock-lock-0000000002",
		"__READ__0000000003", "__WRIT__0000000004", "foreign", "x-1000000000",
		"_c_" + testID + "-lock-0000000005", "_c_" + testID + "-", "\xff",
	} {
		f.Add(name, []byte{0x53, 0x34, 0x5f, 0x98}, int32(7))
	}
	f.Add("lease-", []byte{}, int32(-2147483648))
	f.Add("latch-", []byte("0123456789abcdef"), int32(-1))
	f.Fuzz(func(t *testing.T, name string, idBytes []byte, seq int32) {
		// Nothing panics on arbitrary input.
		for _, lockNames := range [][]string{nil, {LockName}, {ReadLockName, WriteLockName}, {""}} {
			pn := ParseNode(name, lockNames...)
			require.Equal(t, name, pn.Raw)
			_ = SortKey(name, lockNames...)
		}
		_, _ = SequenceOf(name)
		if id, ok := ProtectionID(name); ok {
			require.Equal(t, name, ProtectedName(id, Unprotect(name)))
		}

		if ValidateName(name) != nil {
			return
		}
		var u [16]byte
		copy(u[:], idBytes)
		id := formatUUID(u)
		protected := ProtectedName(id, name)
		got, ok := ProtectionID(protected)
		require.True(t, ok, "%q", protected)
		require.Equal(t, id, got)
		require.Equal(t, name, Unprotect(protected))
		require.True(t, HasProtectionID(protected, id))
		require.NoError(t, ValidateName(protected))

		// A sequential create of name+"lock-" parses back to the server's counter.
		suffix := fmt.Sprintf("%010d", seq)
		child := ProtectedName(id, name+LockName) + suffix
		pn := ParseNode(child, LockName)
		require.Equal(t, NodeName{Raw: child, ProtectionID: id, LockName: LockName, Sequence: seq, HasSequence: true}, pn)
		require.Equal(t, suffix, SortKey(child, LockName))
	})
}
