package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/framework"
)

// The exit statuses of zkr. A command that runs COMMAND exits with
// COMMAND's status when it ran to its end.
const (
	exitOK          = 0   // done
	exitError       = 1   // any other failure (the server refused a request, no such node, ...)
	exitUsage       = 2   // bad flag, argument or path
	exitUnreachable = 3   // no session in time, a name that does not resolve, servers gone while waiting
	exitNotAcquired = 4   // --timeout ran out while others held the lock or leases, or led, or no item came; a counter update beaten
	exitLost        = 5   // the hold or term was lost while COMMAND ran (--on-lost=term)
	exitRevoked     = 6   // a revocation request ended the hold (--revocable)
	exitNoCommand   = 127 // COMMAND could not be started
	exitInterrupted = 130 // SIGINT while waiting; a signal N exits 128+N
)

// exitStatuses documents the statuses, for help.
const exitStatuses = `Exit statuses:
  0    done (for lock, semaphore, rwlock, elect, register and barrier
       enter: COMMAND's own status when it ran; for watch, inspect
       --watch and register without COMMAND: ended by SIGINT or SIGTERM)
  1    other failure (the server refused a request, no such node, a
       version that did not match, services NAME found none, ...)
  2    usage: bad flag, argument, path or --servers
  3    ZooKeeper unreachable: no session within --connect-timeout (or
       --timeout), a server name that does not resolve, or the servers
       went away while waiting
  4    not acquired: --timeout ran out while others held it (elect: led;
       barrier: while the barrier stood, or before every member entered;
       queue take: before an item came); counter: other writers beat
       every try, nothing written
  5    hold lost (elect: term lost; barrier enter: the member's session)
       while COMMAND ran (--on-lost=term), or before the member left
  6    revoked while COMMAND ran (--revocable)
  127  COMMAND could not be started
  128+N  signal N while waiting (SIGINT 130, SIGTERM 143; elect: also
       between terms), or COMMAND was killed by signal N

COMMAND's own status may be 1 to 6 as well. To tell zkr's from it, give
--exit-base N (any command; default $ZKR_EXIT_BASE, else 0; N from 0 to
119): zkr then exits N+1 to N+6 for its own failures 1 to 6 (with
--exit-base 100: 101 other failure, 102 usage, 103 unreachable, 104 not
acquired, 105 lost, 106 revoked), and COMMAND's status, 127 and 128+N as
they are. zkr says each failure of its own on stderr, in one line
starting "zkr: "; when it exits with COMMAND's status, it adds none.`

var (
	// errUsage is a command line zkr does not understand.
	errUsage = errors.New("usage")
	// errUnreachable is a server that gave no session in time.
	errUnreachable = errors.New("ZooKeeper unreachable")
	// errLostHold is a hold lost while COMMAND ran.
	errLostHold = errors.New("hold lost")
	// errRevoked is a hold given up on a revocation request.
	errRevoked = errors.New("revoked")
	// errInterrupted is a signal while waiting.
	errInterrupted = errors.New("interrupted")
	// errNoCommand is a COMMAND that could not start.
	errNoCommand = errors.New("cannot run command")
	// errBeaten is a counter update that other writers beat on every try.
	errBeaten = errors.New("other writers came first")
	// errNoMatch is a name that names nothing there (zkr services NAME).
	errNoMatch = errors.New("not found")
	// errTimedOut is a barrier's wait or a queue's take that --timeout
	// ended.
	errTimedOut = errors.New("timed out")
)

// interruption is a signal that ended a wait: errInterrupted, exiting
// 128+N for signal N.
type interruption struct{ sig os.Signal }

// Error says the signal.
func (i interruption) Error() string { return fmt.Sprintf("%v (%v)", errInterrupted, i.sig) }

// Is makes errors.Is(i, errInterrupted) hold.
func (i interruption) Is(target error) bool { return target == errInterrupted }

// status is 128+N for signal N, as a shell reports it.
func (i interruption) status() int {
	if s, ok := i.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return exitInterrupted
}

// unreachableErr is zkr's "ZooKeeper unreachable" in front of an error
// that may say so already, in the library's words: zkr says it once, first.
type unreachableErr struct{ err error }

// Error says "ZooKeeper unreachable" and the cause, without the library's
// own words for the same.
func (u unreachableErr) Error() string {
	msg := u.err.Error()
	for _, said := range []string{"framework: unreachable: ", zkrecipes.ErrUnreachable.Error() + ": "} {
		msg = strings.ReplaceAll(msg, said, "")
	}
	return errUnreachable.Error() + ": " + msg
}

// Unwrap gives errUnreachable and the cause.
func (u unreachableErr) Unwrap() []error { return []error{errUnreachable, u.err} }

// exitError carries COMMAND's exit status through run.
type exitStatus int

// Error says the status.
func (e exitStatus) Error() string { return fmt.Sprintf("command exited with status %d", int(e)) }

// usagef returns a usage error with a message.
func usagef(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errUsage}, args...)...)
}

// exitCode maps an error of run to the process's exit status: zkr's own
// failures shifted by the exit base, if any.
func exitCode(err error) int {
	code := statusOf(err)
	var b based
	if errors.As(err, &b) && ownStatus(err, code) {
		code += b.base
	}
	return code
}

// statusOf maps an error of run to zkr's exit status.
func statusOf(err error) int {
	var status exitStatus
	var signal interruption
	var dnsErr *net.DNSError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &status):
		return int(status)
	case errors.As(err, &signal):
		return signal.status()
	case errors.As(err, &dnsErr):
		// A name that does not resolve: the server is out of reach, the
		// command line may be right.
		return exitUnreachable
	case errors.Is(err, errUsage), errors.Is(err, zkrecipes.ErrInvalidArgument),
		errors.Is(err, framework.ErrInvalidPath), errors.Is(err, framework.ErrInvalidOption),
		errors.Is(err, framework.ErrNoServers), errors.Is(err, framework.ErrInvalidAddress):
		return exitUsage
	case errors.Is(err, errUnreachable), errors.Is(err, zkrecipes.ErrUnreachable):
		return exitUnreachable
	case errors.Is(err, zkrecipes.ErrNotAcquired), errors.Is(err, errBeaten), errors.Is(err, errTimedOut):
		return exitNotAcquired
	case errors.Is(err, errLostHold):
		return exitLost
	case errors.Is(err, errRevoked):
		return exitRevoked
	case errors.Is(err, errNoCommand):
		return exitNoCommand
	case errors.Is(err, errInterrupted), errors.Is(err, context.Canceled):
		return exitInterrupted
	default:
		return exitError
	}
}
