package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// releaseTimeout bounds the release after COMMAND has exited; whatever is
// not released by then goes with the session when zkr closes it.
const releaseTimeout = 10 * time.Second

// held is what lock, semaphore (and a read/write lock) hold while COMMAND
// runs.
type held struct {
	what    string          // "lock /a/b", for messages
	lost    <-chan struct{} // closed when the hold is lost
	err     func() error    // why it was lost
	revoked <-chan struct{} // closed on a revocation request; nil if not revocable
	env     []string        // ZKR_* variables for COMMAND
	release func(ctx context.Context) error
}

// childFlags say what to do with COMMAND when the hold ends under it.
type childFlags struct {
	onLost string        // "term" or "ignore"
	grace  time.Duration // between SIGTERM and SIGKILL
}

// check validates the flags.
func (f *childFlags) check() error {
	if f.onLost != "term" && f.onLost != "ignore" {
		return usagef("--on-lost takes term or ignore, not %q", f.onLost)
	}
	if f.grace < 0 {
		return usagef("--grace must not be negative")
	}
	return nil
}

// runHolding runs COMMAND while h is held, forwards SIGINT and SIGTERM to
// it, stops it if the hold is lost or revoked (per f), releases h, and
// returns COMMAND's status as an exitStatus, or why it was stopped.
func runHolding(e *env, h held, argv []string, f childFlags) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.stdout, e.stderr
	cmd.Env = append(os.Environ(), h.env...)
	cmd.SysProcAttr = childProcAttr()
	if err := cmd.Start(); err != nil {
		releaseHeld(e, h)
		return fmt.Errorf("%w: %w", errNoCommand, err)
	}
	waited := make(chan error, 1)
	// Ends when COMMAND exits.
	go func() { waited <- cmd.Wait() }()

	var stopped error         // why zkr stopped COMMAND, if it did
	var kill <-chan time.Time // the SIGKILL deadline once COMMAND is told to stop
	lost, revoked := h.lost, h.revoked
	stop := func(reason error) {
		fmt.Fprintf(e.stderr, "zkr: %s; stopping COMMAND (SIGTERM, SIGKILL after %v)\n", oneLine(reason), f.grace)
		stopped = fmt.Errorf("%w; COMMAND stopped", reason)
		_ = cmd.Process.Signal(syscall.SIGTERM)
		kill = time.After(f.grace)
	}
	var waitErr error
loop:
	for {
		select {
		case waitErr = <-waited:
			break loop
		case s := <-e.signals:
			_ = cmd.Process.Signal(s)
		case <-lost:
			lost = nil
			reason := fmt.Errorf("%w: %s: %v", errLostHold, h.what, h.err())
			if f.onLost == "ignore" {
				fmt.Fprintf(e.stderr, "zkr: %s; COMMAND keeps running (--on-lost=ignore)\n", oneLine(reason))
				continue
			}
			if stopped == nil {
				stop(reason)
			}
		case <-revoked:
			revoked = nil
			if stopped == nil {
				stop(fmt.Errorf("%w: %s: revocation requested", errRevoked, h.what))
			}
		case <-kill:
			kill = nil
			_ = cmd.Process.Kill()
		}
	}
	releaseHeld(e, h)
	if stopped != nil {
		return stopped
	}
	return commandStatus(waitErr)
}

// releaseHeld releases h, saying so on stderr when it fails for another
// reason than an earlier loss.
func releaseHeld(e *env, h held) {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	if err := h.release(ctx); err != nil && h.err() == nil {
		fmt.Fprintf(e.stderr, "zkr: release %s: %s (the node goes with the session)\n", h.what, oneLine(err))
	}
}

// commandStatus turns what cmd.Wait returned into zkr's result: COMMAND's
// exit status, or 128+N when signal N killed it.
func commandStatus(err error) error {
	if err == nil {
		return nil
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return err
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return exitStatus(128 + int(ws.Signal()))
	}
	return exitStatus(exit.ExitCode())
}

// nodeData is what zkr writes into its lock and lease nodes, for operators:
// host, process and COMMAND.
func nodeData(argv []string) []byte {
	host, _ := os.Hostname()
	cmdline := strings.Join(argv, " ")
	if len(cmdline) > 200 {
		cmdline = cmdline[:200] + "..."
	}
	return fmt.Appendf(nil, "zkr %s pid %d: %s", host, os.Getpid(), cmdline)
}
