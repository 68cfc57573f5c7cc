package leader

import (
	"log/slog"

	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// logAttr and errAttr are recipe.LogAttr and recipe.ErrAttr: a user's
// value in a log line, clipped.
var (
	logAttr = recipe.LogAttr
	errAttr = recipe.ErrAttr
)

// logIDs are the attributes that name a latch in its log lines.
func (l *Latch) logIDs() slog.Attr {
	return slog.Group("", logAttr("path", l.path), logAttr("id", l.opts.id))
}

// logIDs are the attributes that name a selector in its log lines.
func (s *Selector) logIDs() slog.Attr {
	return slog.Group("", logAttr("path", s.path), logAttr("participant", s.opts.id))
}
