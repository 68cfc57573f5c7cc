package discovery

import "unicode/utf8"

// appendString appends s as a JSON string the way Jackson writes one:
// only '"', '\\' and control characters escaped, the latter as \b, \t,
// \n, \f, \r or \u00XX with upper-case hex; everything else, '/', '<',
// U+2028 and all non-ASCII included, as UTF-8. Invalid UTF-8 is written
// as U+FFFD.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\t':
			b = append(b, '\\', 't')
		case '\n':
			b = append(b, '\\', 'n')
		case '\f':
			b = append(b, '\\', 'f')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			if c < 0x20 {
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			} else {
				b = append(b, c)
			}
		}
		i++
	}
	return append(b, '"')
}

// appendNullable appends s, or null when null is set.
func appendNullable(b []byte, s string, null bool) []byte {
	if null {
		return append(b, "null"...)
	}
	return appendString(b, s)
}
