package leader

import (
	"fmt"
	"log/slog"
	"unicode/utf8"
)

// maxLogValue is the most bytes of a user's value (a participant id, a
// path, an error's text, which may name both) that a log line carries.
// An id may be close to a megabyte, and some lines come at every retry:
// the log must not grow by that much each time.
const maxLogValue = 200

// clip returns s cut to maxLogValue bytes, at a rune boundary, with its
// length said, so that a reader sees that it was cut.
func clip(s string) string {
	if len(s) <= maxLogValue {
		return s
	}
	cut := maxLogValue
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", s[:cut], len(s))
}

// logAttr is a log attribute of a user's value, clipped.
func logAttr(key, value string) slog.Attr { return slog.String(key, clip(value)) }

// errAttr is the "err" attribute of a log line, its text clipped.
func errAttr(err error) slog.Attr {
	if err == nil {
		return slog.Any("err", nil)
	}
	return logAttr("err", err.Error())
}

// logIDs are the attributes that name a latch in its log lines.
func (l *Latch) logIDs() slog.Attr {
	return slog.Group("", logAttr("path", l.path), logAttr("id", l.opts.id))
}

// logIDs are the attributes that name a selector in its log lines.
func (s *Selector) logIDs() slog.Attr {
	return slog.Group("", logAttr("path", s.path), logAttr("participant", s.opts.id))
}
