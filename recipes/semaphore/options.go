package semaphore

import (
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
)

// Option configures a Semaphore or a Mutex.
type Option func(*options) error

type options struct {
	data    []byte
	policy  framework.ErrorPolicy
	maxHold time.Duration
}

// WithData sets the data of the lease nodes (and of the guard's lock
// nodes), shown to operators and returned by Participants: for example the
// holder's host and process. Default: empty.
func WithData(data []byte) Option {
	return func(o *options) error {
		o.data = append([]byte(nil), data...)
		return nil
	}
}

// WithErrorPolicy chooses when a lease counts as lost: at Suspended
// (framework.StandardErrorPolicy) or only at Lost
// (framework.SessionErrorPolicy). Default: framework.StandardErrorPolicy.
func WithErrorPolicy(p framework.ErrorPolicy) Option {
	return func(o *options) error {
		if err := recipe.CheckErrorPolicy(p, ErrInvalidArgument); err != nil {
			return err
		}
		o.policy = p
		return nil
	}
}

// WithMaxHold makes every lease time-bounded (leases.WithMaxHold): once d
// has passed since the acquire, the holder's process returns the lease and
// signals it lost. Default: no bound.
func WithMaxHold(d time.Duration) Option {
	return func(o *options) error {
		if d <= 0 {
			return fmt.Errorf("%w: maximum hold time %v must be positive", ErrInvalidArgument, d)
		}
		o.maxHold = d
		return nil
	}
}

// leaseOptions are the options of the leases the semaphore issues.
func (o options) leaseOptions() []leases.Option {
	opts := []leases.Option{leases.WithErrorPolicy(o.policy)}
	if o.maxHold > 0 {
		opts = append(opts, leases.WithMaxHold(o.maxHold))
	}
	return opts
}
