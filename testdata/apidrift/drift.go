// Package apidrift is a recipe planted with one of each drift from
// CONTRIBUTING.md's vocabulary table, for the API test to find.
package apidrift

import (
	"context"
	"errors"

	"github.com/zkrecipes/zkrecipes/framework"
)

// ErrStray is a sentinel outside errors.go.
var ErrStray = errors.New("apidrift: stray")

// Option is the package's option.
type Option func(*options) error

// OtherOption is a second option type.
type OtherOption func(*options) error

type options struct{}

// WithGood is an option as the table has it. Default: none.
func WithGood() Option { return nil }

// WithSilence is an option that does not say what holds without it.
func WithSilence() Option { return nil }

// WithOther returns the second option type. Default: none.
func WithOther() OtherOption { return nil }

// WithOwner returns a context, not an option. Default: none.
func WithOwner(ctx context.Context, owner any) context.Context { return ctx }

// Listener is an interface of callbacks.
type Listener interface{ OnEvent() }

// Thing runs in the background without Done.
type Thing struct{}

// New returns no error.
func New(client *framework.Client, path string) *Thing { return &Thing{} }

// NewGood is a constructor as the table has it.
func NewGood(client *framework.Client, path string, opts ...Option) (*Thing, error) {
	return &Thing{}, nil
}

// NewValue makes a value, not a recipe: no client, no rule.
func NewValue(n int) *Hold { return &Hold{} }

// WithErrorPolicy takes what mutex.WithErrorPolicy does not, and the
// package has no WithLogger. Default: none.
func WithErrorPolicy(name string) Option { return nil }

// Event names its path Node.
type Event struct {
	Node string
}

// Start starts it.
func (t *Thing) Start(ctx context.Context) error { return nil }

// Close takes no ctx.
func (t *Thing) Close() error { return nil }

// Err says why it stopped.
func (t *Thing) Err() error { return nil }

// AwaitReady waits without a ctx.
func (t *Thing) AwaitReady() error { return nil }

// Stop is a second way to end it.
func (t *Thing) Stop() {}

// AddListener takes a function of no event.
func (t *Thing) AddListener(fn func()) (remove func()) { return fn }

// Wait takes ctx second.
func (t *Thing) Wait(n int, ctx context.Context) error { return nil }

// Configure takes the second option type.
func (t *Thing) Configure(opts ...OtherOption) {}

// Runner runs in the background by Run, with no Done.
type Runner struct{}

// Run runs it until ctx ends.
func (r *Runner) Run(ctx context.Context) error { return nil }

// Close ends it.
func (r *Runner) Close(ctx context.Context) error { return nil }

// Err says why it stopped.
func (r *Runner) Err() error { return nil }

// Hold is a hold without Guard, with a Name.
type Hold struct{}

// Lost is closed at a loss.
func (h *Hold) Lost() <-chan struct{} { return nil }

// Err says why it ended.
func (h *Hold) Err() error { return nil }

// Node is its node.
func (h *Hold) Node() string { return "" }

// Name is its node's name.
func (h *Hold) Name() string { return "" }

// FencingToken is its token.
func (h *Hold) FencingToken(ctx context.Context) (int64, error) { return 0, nil }

// Release gives it back.
func (h *Hold) Release(ctx context.Context) error { return nil }

func (h *Hold) Undocumented() {}

// Guards would do for a hold of several nodes, but this one has one.
func (h *Hold) guards() []framework.Op { return nil }

// Observe hands out changes without an error, under another name.
func (t *Thing) Observe(ctx context.Context) <-chan int { return nil }

// Participant names its node's path Path.
type Participant struct {
	Path string
	ID   string
}

// Participants lists the participants without a ctx.
func (t *Thing) Participants() []Participant { return nil }
