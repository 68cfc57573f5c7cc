package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
)

// exitBaseEnv is the environment variable that sets --exit-base's default.
const exitBaseEnv = "ZKR_EXIT_BASE"

// maxExitBase keeps zkr's own statuses, shifted, below 126, 127 and the
// 128+N of a signal.
const maxExitBase = 119

// exitBase is --exit-base: added to zkr's own failure statuses (1 to 6)
// so that a script tells them from the same statuses of COMMAND.
type exitBase int

// Set parses a base from 0 to maxExitBase.
func (b *exitBase) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > maxExitBase {
		return fmt.Errorf("takes 0 to %d, not %q", maxExitBase, s)
	}
	*b = exitBase(n)
	return nil
}

// String says the base.
func (b *exitBase) String() string {
	if b == nil {
		return "0"
	}
	return strconv.Itoa(int(*b))
}

// register adds --exit-base to fs.
func (b *exitBase) register(fs *flag.FlagSet) {
	fs.Var(b, "exit-base", "add `N` (0 to "+strconv.Itoa(maxExitBase)+") to zkr's own failure statuses 1 to 6, "+
		"to tell them from COMMAND's (default $"+exitBaseEnv+", else 0)")
}

// based is an error of run under an exit base.
type based struct {
	err  error
	base int
}

// Error says the error.
func (b based) Error() string { return b.err.Error() }

// Unwrap returns the error.
func (b based) Unwrap() error { return b.err }

// ownStatus tells whether code, the status of err, is one of zkr's own
// failures (1 to 6) rather than COMMAND's status or a signal's.
func ownStatus(err error, code int) bool {
	var status exitStatus
	var signal interruption
	return code >= exitError && code <= exitRevoked && !errors.As(err, &status) && !errors.As(err, &signal)
}
