package leader

import (
	"fmt"
	"log/slog"
	"time"
	"unicode/utf8"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Option configures a participant of an election (a Latch or a Selector)
// or an Observer of one. Each option's doc says whom it configures, and
// the other constructors refuse it: WithCloseMode is a latch's only,
// WithAutoRequeue and WithStopTimeout a selector's only, ObserveSelector
// an observer's only, and the rest a participant's.
type Option func(*options) error

type options struct {
	id          string
	policy      framework.ErrorPolicy
	logger      *slog.Logger // nil until config: the client's
	mode        CloseMode    // a latch's
	autoRequeue bool         // a selector's
	stopTimeout time.Duration
	clock       clock        // nil until config: the process's; a test's seam (export_test.go)
	lockName    string       // an observer's: the election's (ObserveSelector)
	parts       recipe.Parts // whom each option given configures
}

// What an Option configures.
const (
	latchPart    = "a Latch"
	selectorPart = "a Selector"
	observerPart = "an Observer"
)

// defaultStopTimeout is how long a Selector waits for its function to
// return after cancelling its context, before it says so in the log and
// Close stops waiting.
const defaultStopTimeout = 10 * time.Second

// config applies opts over the defaults for a participant of kind
// (latchPart or selectorPart), refusing the options of the others.
func config(client *framework.Client, kind string, opts []Option) (options, error) {
	o, err := recipe.Options(opts, ErrInvalidArgument)
	if err != nil {
		return o, err
	}
	if err := o.parts.Refuse(kind, ErrInvalidArgument); err != nil {
		return o, err
	}
	if o.logger == nil {
		o.logger = client.Hooks().Logger("leader")
	}
	if o.clock == nil {
		o.clock = newMonoClock()
	}
	if o.stopTimeout == 0 {
		o.stopTimeout = defaultStopTimeout
	}
	return o, nil
}

// checkNodeSize refuses an id whose node at path would be over the
// server's limit, though the id alone is not: every create of the node
// would fail, and a participant would try again for ever.
func checkNodeSize(path, lockName, id string) error {
	// The create carries the path, the protected name and its sequence,
	// and the id as data.
	if n := len(path) + len("/_c_") + 36 + len("-"+lockName) + 10 + len(id); n > framework.MaxRequestSize {
		return fmt.Errorf("%w: a node of %d bytes (path and id) is over the server's limit", ErrInvalidArgument, n)
	}
	return nil
}

// CloseMode says whether leaving the election (Close, or the end of the
// context given to Start) tells a latch's listeners NotLeader, as
// Curator's LeaderLatch.CloseMode.
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

// WithID sets the participant id, the data of the participant's node
// (UTF-8, as Curator's LeaderLatch id and LeaderSelector.setId): Leader,
// Participants and Watch name a participant by it, on the Go and the
// Java side. It must be valid UTF-8, since Curator reads it as such, and
// small enough for the node's create (path, name and id) to fit the
// server's limit: NewLatch and NewSelector refuse it otherwise. Log lines
// carry only its first bytes.
// A participant's option. Default: "", written as no data, as Curator's
// default id.
func WithID(id string) Option {
	return func(o *options) error {
		switch {
		case !utf8.ValidString(id):
			return fmt.Errorf("%w: participant id %q is not UTF-8", ErrInvalidArgument, id)
		case len(id) > framework.MaxRequestSize:
			return fmt.Errorf("%w: a participant id of %d bytes is over the server's limit", ErrInvalidArgument, len(id))
		}
		o.id = id
		o.parts.Configures("WithID", latchPart, selectorPart)
		return nil
	}
}

// WithErrorPolicy chooses when a term counts as lost: at Suspended
// (framework.StandardErrorPolicy, as Curator's default) or only at Lost
// (framework.SessionErrorPolicy). Under either, a term ends at the latest
// when its session's lease runs out, before the server can expire the
// session and let a successor lead. A participant's option. Default:
// framework.StandardErrorPolicy.
func WithErrorPolicy(p framework.ErrorPolicy) Option {
	return func(o *options) error {
		if err := recipe.SetErrorPolicy(&o.policy, p, ErrInvalidArgument); err != nil {
			return err
		}
		o.parts.Configures("WithErrorPolicy", latchPart, selectorPart)
		return nil
	}
}

// WithLogger sets the logger of the participant's own messages: a lost
// term, a join tried again, a function slow to stop. A participant's
// option. Default: the client's logger with the component zkrecipes/leader
// (framework.Hooks.Logger).
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error {
		if err := recipe.SetLogger(&o.logger, l, ErrInvalidArgument); err != nil {
			return err
		}
		o.parts.Configures("WithLogger", latchPart, selectorPart)
		return nil
	}
}

// WithCloseMode chooses whether a latch's leaving tells its listeners
// NotLeader. A latch's option only. Default: Silent.
func WithCloseMode(mode CloseMode) Option {
	return func(o *options) error {
		if mode != Silent && mode != Notify {
			return fmt.Errorf("%w: close mode %v", ErrInvalidArgument, mode)
		}
		o.mode = mode
		o.parts.Configures("WithCloseMode", latchPart)
		return nil
	}
}

// WithAutoRequeue makes Selector.Run queue again each time a term ends,
// for any cause but Close and the end of Run's ctx, so that the function
// runs again each time leadership comes back, as Curator's autoRequeue. A
// term lost while the session lives keeps its node, so that the function
// runs again at once if the node is still first once reconnected (see
// Selector.Run). A function that fails on its own (returns an error while
// its ctx is live) is not run again at once: Run waits 250 ms before it
// queues again, doubling with each such failure in a row up to 30 s, and
// starting over after a term whose function returned nil, was stopped, or
// ran for more than 30 s; meanwhile its node is gone and another
// participant leads. A selector's option only. Default: Run returns after
// one term.
func WithAutoRequeue() Option {
	return func(o *options) error {
		o.autoRequeue = true
		o.parts.Configures("WithAutoRequeue", selectorPart)
		return nil
	}
}

// WithStopTimeout bounds how long a Selector waits for its function to
// return once it has cancelled the function's context (Close, the end of
// Run's ctx, a loss). The participant's node is deleted only after the
// function has returned, however long it takes, so that no successor
// leads while it runs; past d, a warning names the election's path and
// the participant, and Close returns ErrStopTimeout instead of waiting
// on. A selector's option only. Default: 10 s.
func WithStopTimeout(d time.Duration) Option {
	return func(o *options) error {
		if d <= 0 {
			return fmt.Errorf("%w: stop timeout %v must be positive", ErrInvalidArgument, d)
		}
		o.stopTimeout = d
		o.parts.Configures("WithStopTimeout", selectorPart)
		return nil
	}
}
