// Package recipe holds what the recipes share: the argument checks that
// every recipe's constructor makes, so that each rejects bad input the same
// way before any I/O; fencing tokens; finishing a release after its
// context ended; and the errors of a wait. It lives under recipes/internal
// so that only recipes can import it.
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

// CheckErrorPolicy checks an error policy option. The error wraps invalid.
func CheckErrorPolicy(p framework.ErrorPolicy, invalid error) error {
	if p != framework.StandardErrorPolicy && p != framework.SessionErrorPolicy {
		return fmt.Errorf("%w: error policy %v", invalid, p)
	}
	return nil
}

// CheckMaxHold checks a maximum hold time option: it must be positive. The
// error wraps invalid.
func CheckMaxHold(d time.Duration, invalid error) error {
	if d <= 0 {
		return fmt.Errorf("%w: maximum hold time %v must be positive", invalid, d)
	}
	return nil
}
