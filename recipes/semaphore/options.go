package semaphore

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
)

// Option configures a Semaphore or a Mutex.
type Option func(*options) error

type options struct {
	data    []byte
	policy  framework.ErrorPolicy
	maxHold time.Duration
	ttl     time.Duration
	logger  *slog.Logger // nil: the client's (WithLogger)
}

// WithData sets the data of the lease nodes (and of the guard's lock
// nodes), shown to operators and returned by Participants: for example the
// holder's host and process. Time-bounded leases (WithMaxHold, WithTTL)
// put a leases.Stamp before it in their nodes; Lease.Data returns it
// without. Default: empty.
func WithData(data []byte) Option {
	return func(o *options) error {
		o.data = append([]byte(nil), data...)
		return nil
	}
}

// WithErrorPolicy chooses when a lease counts as lost: at Suspended
// (framework.StandardErrorPolicy) or only at Lost
// (framework.SessionErrorPolicy). Under either, the hold also ends when
// its session's lease runs out (framework.Session.LeaseDeadline), before
// the server can expire the session. Default:
// framework.StandardErrorPolicy.
func WithErrorPolicy(p framework.ErrorPolicy) Option {
	return func(o *options) error { return recipe.SetErrorPolicy(&o.policy, p, ErrInvalidArgument) }
}

// WithMaxHold makes every lease time-bounded (leases.WithMaxHold): once d
// has passed since the acquire or the lease's last renewal (Lease.Renew,
// or a leases.Keeper), the holder's process returns the lease and signals
// it lost. The lease nodes' data then starts with a leases.Stamp that
// shows the bound (and, once renewed, the last renewal) to operators.
// Default: no bound.
func WithMaxHold(d time.Duration) Option {
	return func(o *options) error { return recipe.SetMaxHold(&o.maxHold, d, ErrInvalidArgument) }
}

// WithTTL makes every lease a TTL lease (see leases.IssueTTL): its node is
// persistent with a time to live instead of ephemeral, so it outlives the
// holder's session and process, and a restarted holder takes it over with
// Resume. The holder renews it (Lease.Renew, or a leases.Keeper); the
// server removes it within ttl plus its znode.container.checkIntervalMs
// (60 s by default) after the last renewal, and the holder's process gives
// it up itself once ttl has passed on its own clock, counted from before
// the create (or the renewal) was sent, so that it stops holding before the
// server can free the permit as long as the clocks agree (see
// leases.IssueTTL for the clock caveat: rate, and steps of the server
// leader's wall clock). Such nodes still
// count as leases for Curator processes on the same path. The server must
// run with extendedTypesEnabled=true: otherwise acquires fail with
// leases.ErrTTLUnsupported, leaving nothing behind. Cannot be combined
// with WithMaxHold. AcquireN creates the n nodes one by one under the
// guard (TTL creates cannot be part of a transaction). The server keeps
// whole milliseconds of ttl, which must be at least 1 ms. Default: leases
// of the session.
func WithTTL(ttl time.Duration) Option {
	return func(o *options) error {
		if ttl < time.Millisecond {
			return fmt.Errorf("%w: time to live %v must be at least 1 ms", ErrInvalidArgument, ttl)
		}
		o.ttl = ttl
		return nil
	}
}

// check checks the options together.
func (o options) check() error {
	if o.ttl > 0 && o.maxHold > 0 {
		return fmt.Errorf("%w: WithTTL and WithMaxHold: the bound of a TTL lease is its time to live", ErrInvalidArgument)
	}
	return nil
}

// leaseNodeData returns the data of the lease nodes: the data of WithData,
// after a leases.Stamp that shows the bound of time-bounded leases.
func (o options) leaseNodeData() []byte {
	switch {
	case o.ttl > 0:
		return leases.Stamp{Mode: leases.TTLMode, Bound: o.ttl}.Encode(o.data)
	case o.maxHold > 0:
		return leases.Stamp{Mode: leases.SessionMode, Bound: o.maxHold}.Encode(o.data)
	}
	return o.data
}

// ttlLeaseOptions are the options of the TTL leases the semaphore issues.
func (o options) ttlLeaseOptions() []leases.Option {
	opts := []leases.Option{leases.WithErrorPolicy(o.policy), leases.WithKind("semaphore", "lease")}
	if o.logger != nil {
		opts = append(opts, leases.WithLogger(o.logger))
	}
	return opts
}

// leaseOptions are the options of the semaphore's session leases: a TTL
// lease's, and the maximum hold.
func (o options) leaseOptions() []leases.Option {
	opts := o.ttlLeaseOptions()
	if o.maxHold > 0 {
		opts = append(opts, leases.WithMaxHold(o.maxHold))
	}
	return opts
}

// WithLogger sets the logger of the semaphore's own messages (a hold lost, a
// clean-up left to the background). A nil logger is rejected with
// ErrInvalidArgument. Default: the client's logger, with the component
// zkrecipes/semaphore (framework.Hooks.Logger).
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error { return recipe.SetLogger(&o.logger, l, ErrInvalidArgument) }
}

// log returns the semaphore's logger: WithLogger's, or the client's.
func (s *Semaphore) log() *slog.Logger {
	return recipe.Logger(s.opts.logger, s.client, "semaphore")
}
