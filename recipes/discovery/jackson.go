package discovery

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// appendString appends s as a JSON string the way Jackson 2.x writes one
// by default: only '"', '\\' and control characters escaped, the latter
// as \b, \t, \n, \f, \r or \u00XX with upper-case hex, and characters
// beyond U+FFFF as their UTF-16 surrogate pair, \uD834\uDD1E; everything
// else ('/', '<', U+2028 and the rest of non-ASCII) as UTF-8. Invalid
// UTF-8 is written as U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s { // invalid UTF-8 comes as U+FFFD
		b = appendRune(b, r)
	}
	return append(b, '"')
}

// appendRune appends r as Jackson writes it inside a string.
func appendRune(b []byte, r rune) []byte {
	const hex = "0123456789ABCDEF"
	switch r {
	case '"', '\\':
		return append(b, '\\', byte(r))
	case '\b':
		return append(b, '\\', 'b')
	case '\t':
		return append(b, '\\', 't')
	case '\n':
		return append(b, '\\', 'n')
	case '\f':
		return append(b, '\\', 'f')
	case '\r':
		return append(b, '\\', 'r')
	}
	switch {
	case r < 0x20:
		return append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xF])
	case r > 0xFFFF:
		hi, lo := utf16.EncodeRune(r)
		for _, u := range []rune{hi, lo} {
			b = append(b, '\\', 'u', hex[u>>12], hex[u>>8&0xF], hex[u>>4&0xF], hex[u&0xF])
		}
		return b
	}
	return utf8.AppendRune(b, r)
}

// jacksonStrings rewrites the strings of valid JSON from encoding/json as
// appendString writes them: \u2028, \u2029 and \ufffd unescaped, control
// characters as Jackson escapes them, characters beyond U+FFFF as
// surrogate pairs. Everything outside strings is left as it is.
func jacksonStrings(b []byte) []byte {
	out := make([]byte, 0, len(b))
	in := false
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case !in:
			in = c == '"'
			out = append(out, c)
			i++
		case c == '"':
			in = false
			out = append(out, c)
			i++
		case c == '\\' && i+5 < len(b) && b[i+1] == 'u':
			n, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 16)
			if err != nil || utf16.IsSurrogate(rune(n)) {
				out = append(out, b[i:i+6]...) // not from encoding/json: leave it
			} else {
				out = appendRune(out, rune(n))
			}
			i += 6
		case c == '\\':
			r := map[byte]rune{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}[b[i+1]]
			out = appendRune(out, r)
			i += 2
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(b[i:])
			out = appendRune(out, r)
			i += size
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}

// appendNullable appends s, or null when null is set.
func appendNullable(b []byte, s string, null bool) []byte {
	if null {
		return append(b, "null"...)
	}
	return appendString(b, s)
}
