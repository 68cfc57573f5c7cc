// Package recipe holds what the recipes share: the argument checks that
// every recipe's constructor and option makes (SetLogger, SetErrorPolicy,
// SetMaxHold), so that each rejects bad input the same way before any I/O;
// the lifecycle of a recipe that runs in the background (Background) and
// its listeners (Listeners); the loop behind every Watch (Follow); fencing
// tokens; finishing a release after its context ended; and the errors of
// a wait. It lives under recipes/internal so that only recipes can import
// it.
package recipe

import (
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// CheckPath checks a constructor's client and path: a client, and a valid
// path other than the root. The error wraps invalid.
func CheckPath(client *framework.Client, path string, invalid error) error {
	switch {
	case client == nil:
		return fmt.Errorf("%w: nil client", invalid)
	case path == "/":
		return fmt.Errorf("%w: the root cannot hold a recipe", invalid)
	case len(path) > framework.MaxRequestSize:
		return fmt.Errorf("%w: a path of %d bytes is over the server's limit", invalid, len(path))
	}
	if err := zkpath.Validate(path); err != nil {
		return fmt.Errorf("%w: %w", invalid, err)
	}
	return nil
}

// Options applies functional options to a zero O, in order. A nil option
// is an error wrapping invalid; an option's own error is returned as it is.
func Options[O any, F ~func(*O) error](opts []F, invalid error) (O, error) {
	var o O
	for _, opt := range opts {
		if opt == nil {
			return o, fmt.Errorf("%w: nil option", invalid)
		}
		if err := opt(&o); err != nil {
			return o, err
		}
	}
	return o, nil
}

// SetErrorPolicy is every recipe's WithErrorPolicy: it sets *dst to p, one
// of framework's two policies, and refuses any other value with an error
// wrapping invalid.
func SetErrorPolicy(dst *framework.ErrorPolicy, p framework.ErrorPolicy, invalid error) error {
	if p != framework.StandardErrorPolicy && p != framework.SessionErrorPolicy {
		return fmt.Errorf("%w: error policy %v", invalid, p)
	}
	*dst = p
	return nil
}

// SetMaxHold is every recipe's WithMaxHold: it sets *dst to d, which must
// be positive; it refuses any other with an error wrapping invalid.
func SetMaxHold(dst *time.Duration, d time.Duration, invalid error) error {
	if d <= 0 {
		return fmt.Errorf("%w: maximum hold time %v must be positive", invalid, d)
	}
	*dst = d
	return nil
}
