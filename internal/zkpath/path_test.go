package zkpath

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidate_AcceptsZooKeeperPaths(t *testing.T) {
	for _, p := range []string{
		"/",
		"/a",
		"/a/b/c",
		"/locks/_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000001",
		"/a.b",
		"/.a",
		"/a.",
		"/a..b",
		"/...",
		"/a/.../b",
		"/ a b ",
		"/zk-\u00fc\u00e9",   // Latin-1 letters
		"/\u00a0",            // first allowed rune after U+009F
		"/\u4e2d\u6587",      // CJK
		"/\uf900",            // first allowed rune after U+F8FF
		"/\uffef",            // last allowed rune before U+FFF0
		"/-2147483648/-_~!@", // punctuation
	} {
		assert.NoError(t, Validate(p), "%q", p)
	}
}

func TestValidate_RejectsWhatZooKeeperRejects(t *testing.T) {
	cases := map[string]string{
		"empty":                   "",
		"relative":                "a",
		"relative with slash":     "a/b",
		"trailing slash":          "/a/",
		"double slash":            "//",
		"empty segment":           "/a//b",
		"dot":                     "/.",
		"dot-dot":                 "/..",
		"dot segment":             "/a/./b",
		"trailing dot segment":    "/a/.",
		"dot-dot segment":         "/a/../b",
		"trailing dot-dot":        "/a/..",
		"NUL":                     "/a\x00b",
		"U+0001":                  "/a\x01",
		"tab":                     "/a\tb",
		"newline":                 "/a\n",
		"U+001F":                  "/\x1f",
		"DEL U+007F":              "/\x7f",
		"C1 U+0080":               "/\u0080",
		"C1 U+009F":               "/\u009f",
		"private use U+E000":      "/\ue000",
		"private use U+F8FF":      "/\uf8ff",
		"specials U+FFF0":         "/\ufff0",
		"replacement char U+FFFD": "/\ufffd",
		"U+FFFF":                  "/\uffff",
		"outside BMP (emoji)":     "/a\U0001F600",
		"outside BMP (last)":      "/\U0010FFFF",
		"invalid UTF-8":           "/a\xffb",
		"truncated UTF-8":         "/a\xc3",
		"UTF-8 encoded surrogate": "/\xed\xa0\x80",
		"bad char in later part":  "/ok/fine/b\x02d",
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			err := Validate(p)
			require.ErrorIs(t, err, ErrInvalidPath)
			assert.NotErrorIs(t, err, ErrInvalidName)
		})
	}
}

func TestValidateSequential_AllowsWhatTheSuffixCompletes(t *testing.T) {
	for _, p := range []string{"/", "/locks/", "/locks/lock-", "/a/.", "/a/..", "/a"} {
		assert.NoError(t, ValidateSequential(p), "%q", p)
	}
	for _, p := range []string{"", "locks", "//", "/a//", "/a/./", "/a\x00", "/\ufff0"} {
		assert.ErrorIs(t, ValidateSequential(p), ErrInvalidPath, "%q", p)
	}
}

func TestValidateName_ChecksOneSegment(t *testing.T) {
	for _, n := range []string{"a", "lock-0000000001", "...", ".a", "a.", "\u00fc"} {
		assert.NoError(t, ValidateName(n), "%q", n)
	}
	for _, n := range []string{"", ".", "..", "/", "/a", "a/b", "a/", "a\x00", "\x1f", "\x7f", "\u0085", "\ue000", "\uffff", "\U0001F600", "\xff"} {
		err := ValidateName(n)
		assert.ErrorIs(t, err, ErrInvalidName, "%q", n)
		assert.NotErrorIs(t, err, ErrInvalidPath, "%q", n)
	}
}

func TestJoin(t *testing.T) {
	cases := []struct {
		base  string
		elems []string
		want  string
	}{
		{"/a", []string{"b", "c"}, "/a/b/c"},
		{"/", []string{"b"}, "/b"},
		{"/", nil, "/"},
		{"", nil, "/"},
		{"", []string{"a"}, "/a"},
		{"//", []string{"x"}, "/x"},
		{"/a", nil, "/a"},
		{"/a/", []string{"/b/", "c/"}, "/a/b/c"},
		{"/a", []string{"", "/", "//", "b"}, "/a/b"},
		{"a", []string{"b"}, "/a/b"},
		{"/a", []string{"b/c"}, "/a/b/c"},
		{"/locks", []string{"lock-"}, "/locks/lock-"},
		{"/locks", []string{"_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-"}, "/locks/_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Join(c.base, c.elems...), "Join(%q, %q)", c.base, c.elems)
	}
}

func TestSplitParentBase(t *testing.T) {
	cases := []struct {
		path, parent, name string
	}{
		{"/a/b", "/a", "b"},
		{"/a/b/c", "/a/b", "c"},
		{"/a", "/", "a"},
		{"/", "", ""},
		{"", "", ""},
		{"a", "", "a"},
		{"/a/", "/a", ""}, // invalid input: split as written
	}
	for _, c := range cases {
		parent, name := Split(c.path)
		assert.Equal(t, c.parent, parent, "Split(%q) parent", c.path)
		assert.Equal(t, c.name, name, "Split(%q) name", c.path)
		assert.Equal(t, c.parent, Parent(c.path), "Parent(%q)", c.path)
		assert.Equal(t, c.name, Base(c.path), "Base(%q)", c.path)
	}
}
