package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/zkrecipes/zkrecipes"
)

// election is what `zkr elect` knows of its run between the Selector's
// terms: zkr's signals go to the COMMAND of the term under way, or end
// the wait when no term is; the first term ends --timeout's hold over the
// wait.
type election struct {
	what string
	stop context.CancelCauseFunc // ends the Selector's Run

	mu        sync.Mutex     // guards the fields below; never held across a wait
	cause     error          // why zkr stopped waiting (signal, --timeout), outside any term
	led       bool           // a term has begun: --timeout no longer applies
	term      chan os.Signal // signals for the COMMAND under way; nil between terms
	signalled bool           // a signal came while COMMAND ran: zkr ends after it
	result    error          // what the last term's COMMAND came to
}

// signal takes one of zkr's signals. While COMMAND runs it is passed on,
// and SIGINT or SIGTERM also ends the election once COMMAND has exited;
// between terms any signal ends the wait (128+N).
func (el *election) signal(sig os.Signal) {
	el.mu.Lock()
	defer el.mu.Unlock()
	if el.term != nil {
		select {
		case el.term <- sig:
		default: // the supervisor has four unread already
		}
		if sig != syscall.SIGHUP {
			el.signalled = true
			el.stop(interruption{sig})
		}
		return
	}
	if el.cause == nil {
		el.cause = interruption{sig}
	}
	el.stop(el.cause)
}

// timeUp ends the wait when --timeout runs out before the first term;
// connected says whether the client is connected then. A server out of
// reach by then is an error, never "not acquired".
func (el *election) timeUp(connected bool, timeout time.Duration) {
	el.mu.Lock()
	defer el.mu.Unlock()
	if el.led || el.cause != nil {
		return
	}
	if connected {
		el.cause = fmt.Errorf("%s: %w within %v: led by another participant", el.what, zkrecipes.ErrNotAcquired, timeout)
	} else {
		el.cause = fmt.Errorf("%w: %s: no connection when --timeout %v ran out", errUnreachable, el.what, timeout)
	}
	el.stop(el.cause)
}

// begin starts a term's COMMAND, unless zkr stopped waiting as the term
// was granted: then the cause, and COMMAND never starts. It returns the
// channel of the signals for COMMAND.
func (el *election) begin() (chan os.Signal, error) {
	el.mu.Lock()
	defer el.mu.Unlock()
	if el.cause != nil {
		return nil, el.cause
	}
	el.led = true
	el.term = make(chan os.Signal, 4)
	return el.term, nil
}

// end records what a term's COMMAND came to.
func (el *election) end(result error) {
	el.mu.Lock()
	defer el.mu.Unlock()
	el.term = nil
	el.result = result
}

// listen passes e's signals to signal until the returned function is
// called.
func (el *election) listen(e *env) (stop func()) {
	return onSignals(e, func(sig os.Signal) bool {
		el.signal(sig)
		return true
	})
}

// outcome is zkr's result once the Selector's Run has returned runErr:
// COMMAND's status when a signal ended its term (or its term ended the
// run), else why zkr stopped waiting.
func (el *election) outcome(ctx context.Context, runErr error, requeue bool) error {
	el.mu.Lock()
	defer el.mu.Unlock()
	switch {
	case el.signalled:
		return el.result
	case el.cause != nil:
		return el.cause
	case el.led && !requeue:
		return el.result
	case unreachable(ctx, runErr):
		return unreachableErr{runErr}
	}
	return runErr
}
