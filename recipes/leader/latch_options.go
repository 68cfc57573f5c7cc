package leader

import (
	"fmt"
	"log/slog"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// LatchOption configures a Latch.
type LatchOption func(*latchOptions) error

type latchOptions struct {
	id     string
	mode   CloseMode
	policy framework.ErrorPolicy
	logger *slog.Logger // nil: the client's
}

// CloseMode says whether leaving the election (Close, or the end of the
// context given to Start) tells the listeners NotLeader, as Curator's
// LeaderLatch.CloseMode.
type CloseMode int

const (
	// Silent leaves without calling NotLeader; the term's Lost channel
	// still closes. The default, as Curator's SILENT.
	Silent CloseMode = iota
	// Notify calls NotLeader when a leading latch leaves, as Curator's
	// NOTIFY_LEADER.
	Notify
)

// String returns the mode's name.
func (m CloseMode) String() string {
	switch m {
	case Silent:
		return "silent"
	case Notify:
		return "notify"
	}
	return fmt.Sprintf("CloseMode(%d)", int(m))
}

// WithID sets the participant id, written as the data of the latch's node
// (UTF-8, as Curator writes it) so that every participant, Java ones
// included, can name the leader. Default: "", written as no data, as
// Curator's default id.
func WithID(id string) LatchOption {
	return func(o *latchOptions) error {
		o.id = id
		return nil
	}
}

// WithCloseMode chooses whether leaving tells the listeners NotLeader.
// Default: Silent.
func WithCloseMode(mode CloseMode) LatchOption {
	return func(o *latchOptions) error {
		if mode != Silent && mode != Notify {
			return fmt.Errorf("%w: close mode %v", ErrInvalidArgument, mode)
		}
		o.mode = mode
		return nil
	}
}

// WithErrorPolicy chooses when a term counts as lost: at Suspended
// (framework.StandardErrorPolicy) or only at Lost
// (framework.SessionErrorPolicy). Under either, a term also ends when its
// session's lease runs out, before the server can expire the session and
// let another participant lead. Default: framework.StandardErrorPolicy,
// as Curator's LeaderLatch.
func WithErrorPolicy(p framework.ErrorPolicy) LatchOption {
	return func(o *latchOptions) error {
		if err := recipe.CheckErrorPolicy(p, ErrInvalidArgument); err != nil {
			return err
		}
		o.policy = p
		return nil
	}
}

// WithLogger sets the logger of the latch's own messages: a lost term, a
// join that failed and is tried again. Default: the client's logger.
func WithLogger(l *slog.Logger) LatchOption {
	return func(o *latchOptions) error {
		if l == nil {
			return fmt.Errorf("%w: nil logger", ErrInvalidArgument)
		}
		o.logger = l
		return nil
	}
}
