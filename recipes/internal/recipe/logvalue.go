package recipe

import (
	"fmt"
	"log/slog"
	"unicode/utf8"

	"github.com/zkrecipes/zkrecipes/framework"
)

// MaxLogValue is the most bytes of a user's value (a path, a participant
// id, an error's text, which may name both) that a log line carries. A
// path or an id may be close to a megabyte, and some lines come at every
// retry: the log must not grow by that much each time.
const MaxLogValue = 200

// Clip returns s cut to MaxLogValue bytes, at a rune boundary, with its
// length said, so that a reader sees that it was cut.
func Clip(s string) string {
	if len(s) <= MaxLogValue {
		return s
	}
	cut := MaxLogValue
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", s[:cut], len(s))
}

// LogAttr is a log attribute of a user's value, clipped.
func LogAttr(key, value string) slog.Attr { return slog.String(key, Clip(value)) }

// ErrAttr is the "err" attribute of a log line, its text clipped.
func ErrAttr(err error) slog.Attr {
	if err == nil {
		return slog.Any("err", nil)
	}
	return LogAttr("err", err.Error())
}

// Logger returns a recipe's logger: own, given with its WithLogger, or the
// client's logger under the recipe's component (framework.Hooks.Logger).
func Logger(own *slog.Logger, client *framework.Client, component string) *slog.Logger {
	if own != nil {
		return own
	}
	return client.Hooks().Logger(component)
}

// SetLogger is every recipe's WithLogger: it sets *dst to l, and refuses a
// nil logger with an error wrapping invalid.
func SetLogger(dst **slog.Logger, l *slog.Logger, invalid error) error {
	if l == nil {
		return fmt.Errorf("%w: nil logger", invalid)
	}
	*dst = l
	return nil
}
