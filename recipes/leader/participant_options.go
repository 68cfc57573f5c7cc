package leader

import (
	"fmt"
	"log/slog"
	"time"
	"unicode/utf8"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Option configures a participant of an election (see NewSelector).
type Option func(*participantOptions) error

type participantOptions struct {
	id          string
	policy      framework.ErrorPolicy
	logger      *slog.Logger
	autoRequeue bool
	stopTimeout time.Duration
}

// defaultStopTimeout is how long a Selector waits for its function to
// return after cancelling its context, before it says so in the log and
// Close stops waiting.
const defaultStopTimeout = 10 * time.Second

// participantConfig applies opts over the defaults.
func participantConfig(client *framework.Client, opts []Option) (participantOptions, error) {
	o, err := recipe.Options(opts, ErrInvalidArgument)
	if err != nil {
		return o, err
	}
	if o.logger == nil {
		o.logger = client.Logger()
	}
	if o.stopTimeout == 0 {
		o.stopTimeout = defaultStopTimeout
	}
	return o, nil
}

// WithID sets the participant id, the data of the participant's node, as
// Curator's LeaderSelector.setId and LeaderLatch's id: Participants,
// Leader and Observe name a participant by it, on the Go and the Java
// side. It must be valid UTF-8, since Curator reads it as such. Default:
// "" (an empty node).
func WithID(id string) Option {
	return func(o *participantOptions) error {
		switch {
		case !utf8.ValidString(id):
			return fmt.Errorf("%w: participant id %q is not UTF-8", ErrInvalidArgument, id)
		case len(id) > framework.MaxRequestSize:
			return fmt.Errorf("%w: a participant id of %d bytes is over the server's limit", ErrInvalidArgument, len(id))
		}
		o.id = id
		return nil
	}
}

// WithErrorPolicy chooses when a term counts as lost: at Suspended
// (framework.StandardErrorPolicy, as Curator's default) or only at Lost
// (framework.SessionErrorPolicy). Under either, a term ends at the latest
// when its session's lease runs out, before the server can expire the
// session and let a successor lead. Default: framework.StandardErrorPolicy.
func WithErrorPolicy(p framework.ErrorPolicy) Option {
	return func(o *participantOptions) error {
		if err := recipe.CheckErrorPolicy(p, ErrInvalidArgument); err != nil {
			return err
		}
		o.policy = p
		return nil
	}
}

// WithLogger sets the logger of the participant's warnings. Default: the
// client's logger (framework.Client.Logger).
func WithLogger(l *slog.Logger) Option {
	return func(o *participantOptions) error {
		if l == nil {
			return fmt.Errorf("%w: nil logger", ErrInvalidArgument)
		}
		o.logger = l
		return nil
	}
}

// WithAutoRequeue makes Selector.Run queue again each time a term ends,
// for any cause but Close and the end of Run's ctx, so that the function
// runs again each time leadership comes back, as Curator's autoRequeue.
// Default: Run returns after one term.
func WithAutoRequeue() Option {
	return func(o *participantOptions) error {
		o.autoRequeue = true
		return nil
	}
}

// WithStopTimeout bounds how long a Selector waits for its function to
// return once it has cancelled the function's context (Close, the end of
// Run's ctx, a loss). The participant's node is deleted only after the
// function has returned, however long it takes, so that no successor
// leads while it runs; past d, a warning names the election's path and
// the participant, and Close returns ErrStopTimeout instead of waiting
// on. Default: 10 s.
func WithStopTimeout(d time.Duration) Option {
	return func(o *participantOptions) error {
		if d <= 0 {
			return fmt.Errorf("%w: stop timeout %v must be positive", ErrInvalidArgument, d)
		}
		o.stopTimeout = d
		return nil
	}
}
