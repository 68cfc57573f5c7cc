package zkpath

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Validate reports whether path is a valid ZooKeeper node path, following
// ZooKeeper's PathUtils.validatePath: it must be non-empty, start with '/',
// not end with '/' (except the root "/"), have no empty, "." or ".."
// segment, and contain only valid UTF-8 without NUL and without the
// characters ZooKeeper forbids (U+0001-U+001F, U+007F-U+009F,
// U+D800-U+F8FF, U+FFF0-U+FFFF and, being surrogate pairs in Java, every
// rune above U+FFFF). The error wraps ErrInvalidPath and says why.
func Validate(path string) error {
	if why := pathProblem(path); why != "" {
		return fmt.Errorf("%w %q: %s", ErrInvalidPath, path, why)
	}
	return nil
}

// ValidateSequential reports whether path is valid for a sequential create.
// Like Curator, it validates path+"1", since the server appends the
// sequence suffix: so "/locks/" and "/locks/lock-" are both accepted. The
// error wraps ErrInvalidPath and says why.
func ValidateSequential(path string) error {
	if why := pathProblem(path + "1"); why != "" {
		return fmt.Errorf("%w %q (sequential): %s", ErrInvalidPath, path, why)
	}
	return nil
}

// ValidateName reports whether name is a valid single node name, that is,
// one segment of a valid path: non-empty, without '/', not "." or "..",
// and with the same character rules as Validate. The error wraps
// ErrInvalidName and says why.
func ValidateName(name string) error {
	var why string
	switch i := strings.IndexByte(name, '/'); {
	case name == "":
		why = "empty name"
	case i >= 0:
		why = "contains '/' at byte " + strconv.Itoa(i)
	default:
		why = segmentProblem(name, 0)
	}
	if why != "" {
		return fmt.Errorf("%w %q: %s", ErrInvalidName, name, why)
	}
	return nil
}

// pathProblem returns why p is not a valid path, or "" if it is one.
func pathProblem(p string) string {
	switch {
	case p == "":
		return "empty path"
	case p[0] != '/':
		return "must start with '/'"
	case p == "/":
		return ""
	case p[len(p)-1] == '/':
		return "must not end with '/'"
	}
	for start := 1; start < len(p); {
		end := strings.IndexByte(p[start:], '/')
		if end < 0 {
			end = len(p)
		} else {
			end += start
		}
		if why := segmentProblem(p[start:end], start); why != "" {
			return why
		}
		start = end + 1
	}
	return ""
}

// segmentProblem returns why seg, found at byte offset off of its path, is
// not a valid node name, or "" if it is one. The caller has split on '/'.
func segmentProblem(seg string, off int) string {
	at := func(i int) string { return " at byte " + strconv.Itoa(off+i) }
	switch seg {
	case "":
		return "empty segment" + at(0)
	case ".", "..":
		return "relative segment " + strconv.Quote(seg) + at(0)
	}
	for i := 0; i < len(seg); {
		if b := seg[i]; b < utf8.RuneSelf {
			switch {
			case b == 0:
				return "NUL character" + at(i)
			case b < 0x20 || b == 0x7f:
				return fmt.Sprintf("forbidden character %U", b) + at(i)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(seg[i:])
		if r == utf8.RuneError && size == 1 {
			return "invalid UTF-8" + at(i)
		}
		if forbiddenRune(r) {
			return fmt.Sprintf("forbidden character %U", r) + at(i)
		}
		i += size
	}
	return ""
}

// forbiddenRune reports whether ZooKeeper rejects r. Java checks each UTF-16
// code unit; a rune above U+FFFF becomes a surrogate pair (U+D800-U+DFFF),
// which falls in a forbidden range, so such runes are rejected as a whole.
func forbiddenRune(r rune) bool {
	switch {
	case r >= 0x01 && r <= 0x1f,
		r >= 0x7f && r <= 0x9f,
		r >= 0xd800 && r <= 0xf8ff,
		r >= 0xfff0:
		return true
	}
	return false
}

// Join joins base and elems with '/' into one path, the way Curator's
// ZKPaths.makePath does: "/a", "b", "c" gives "/a/b/c" and "/", "b" gives
// "/b". Leading and trailing slashes of each elem are trimmed, elems that
// are then empty are skipped, a trailing '/' of base is dropped and a
// missing leading '/' is added. With nothing to join the result is "/".
// Join does not validate; pass the result to Validate when it comes from
// outside.
func Join(base string, elems ...string) string {
	base = strings.TrimRight(base, "/")
	n := len(base) + 1
	for _, e := range elems {
		n += len(e) + 1
	}
	var b strings.Builder
	b.Grow(n)
	if base != "" && base[0] != '/' {
		b.WriteByte('/')
	}
	b.WriteString(base)
	for _, e := range elems {
		if e = strings.Trim(e, "/"); e != "" {
			b.WriteByte('/')
			b.WriteString(e)
		}
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}

// Parent returns the path of the parent of path: "/a/b" gives "/a", "/a"
// gives "/" and the root "/" gives "". A string without '/' also gives "".
func Parent(path string) string {
	parent, _ := Split(path)
	return parent
}

// Base returns the last segment of path, the node's name: "/a/b" gives "b"
// and the root "/" gives "".
func Base(path string) string {
	_, name := Split(path)
	return name
}

// Split splits path into its parent and its name, so that for a valid path
// other than "/" Join(parent, name) == path. The root "/" gives ("", "");
// a string without '/' is all name.
func Split(path string) (parent, name string) {
	if path == "/" {
		return "", ""
	}
	i := strings.LastIndexByte(path, '/')
	switch {
	case i < 0:
		return "", path
	case i == 0:
		return "/", path[1:]
	default:
		return path[:i], path[i+1:]
	}
}
