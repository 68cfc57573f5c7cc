package main

import (
	"context"
	"errors"
	"flag"
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
	// signalStops says that a SIGINT or SIGTERM passed on to COMMAND
	// means zkr is going away: the group gets SIGKILL after --grace.
	signalStops bool
}

// childFlags say what to do with COMMAND when the hold ends under it.
type childFlags struct {
	onLost string        // "term" or "ignore"
	grace  time.Duration // between SIGTERM and SIGKILL
}

// register registers --on-lost and --grace on fs.
func (f *childFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.onLost, "on-lost", "term", "`action` when the hold is lost while COMMAND runs: term (stop COMMAND, exit 5) or ignore")
	fs.DurationVar(&f.grace, "grace", 10*time.Second, "after SIGTERM, wait this `duration` before SIGKILL")
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

// runHolding runs COMMAND while h is held, forwards zkr's signals to its
// process group, stops the group if the hold is lost or revoked (per f),
// stops what COMMAND left running in its group when it exits, releases h,
// and returns COMMAND's status as an exitStatus, or why it was stopped.
func runHolding(e *env, h held, argv []string, f childFlags) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.stdout, e.stderr
	cmd.Env = append(os.Environ(), h.env...)
	cmd.SysProcAttr = childProcAttr()
	if err := cmd.Start(); err != nil {
		releaseHeld(e, h)
		return fmt.Errorf("%w: %w", errNoCommand, err)
	}
	s := &supervisor{e: e, h: h, f: f, group: procGroup{cmd.Process}}
	drained := false
	defer func() {
		// A panic on the way: the group must not outlive zkr. Not after
		// drain: the group's id may then belong to someone else.
		if !drained {
			s.group.signal(syscall.SIGKILL)
		}
	}()
	waited := make(chan error, 1)
	// Ends when COMMAND exits.
	go func() { waited <- cmd.Wait() }()
	waitErr := s.watch(waited)
	s.drain()
	drained = true
	releaseHeld(e, h)
	if s.stopped != nil {
		return s.stopped
	}
	return commandStatus(waitErr)
}

// supervisor watches COMMAND's process group while the hold lasts.
type supervisor struct {
	e       *env
	h       held
	f       childFlags
	group   procGroup
	stopped error     // why zkr stopped COMMAND, if it did
	kill    time.Time // the SIGKILL deadline once the group is told to stop
}

// stop tells the group to stop: SIGTERM now, SIGKILL at the deadline.
func (s *supervisor) stop(reason error) {
	fmt.Fprintf(s.e.stderr, "zkr: %s; stopping COMMAND (SIGTERM, SIGKILL after %v)\n", oneLine(reason), s.f.grace)
	s.stopped = fmt.Errorf("%w; COMMAND stopped", reason)
	s.group.signal(syscall.SIGTERM)
	s.kill = time.Now().Add(s.f.grace)
}

// watch returns what Wait returned once COMMAND has exited, passing on
// signals and stopping the group on loss or revocation meanwhile.
func (s *supervisor) watch(waited <-chan error) error {
	lost, revoked := s.h.lost, s.h.revoked
	var kill <-chan time.Time
	for {
		select {
		case err := <-waited:
			return err
		case sig := <-s.e.signals:
			s.group.signal(sig)
			if s.h.signalStops && sig != syscall.SIGHUP && s.kill.IsZero() {
				s.kill = time.Now().Add(s.f.grace)
				kill = time.After(s.f.grace)
			}
		case <-lost:
			lost = nil
			reason := fmt.Errorf("%w: %s: %v", errLostHold, s.h.what, s.h.err())
			if s.f.onLost == "ignore" {
				fmt.Fprintf(s.e.stderr, "zkr: %s; COMMAND keeps running (--on-lost=ignore)\n", oneLine(reason))
				continue
			}
			if s.stopped == nil {
				s.stop(reason)
				kill = time.After(s.f.grace)
			}
		case <-revoked:
			revoked = nil
			if s.stopped == nil {
				s.stop(fmt.Errorf("%w: %s: revocation requested", errRevoked, s.h.what))
				kill = time.After(s.f.grace)
			}
		case <-kill:
			kill = nil
			s.group.signal(syscall.SIGKILL)
		}
	}
}

// drainPoll is how often drain looks whether the group is gone.
const drainPoll = 20 * time.Millisecond

// drain stops what is left of the group once COMMAND has exited: its
// background processes must not run on after the hold is released. They
// get SIGTERM (unless the group already had it) and SIGKILL at the
// deadline; drain returns once the group is gone, or shortly after SIGKILL
// if a zombie nobody reaps keeps its id.
func (s *supervisor) drain() {
	if s.group.empty() {
		return
	}
	if s.kill.IsZero() {
		fmt.Fprintf(s.e.stderr, "zkr: COMMAND exited; stopping what it left running (SIGTERM, SIGKILL after %v)\n", s.f.grace)
		s.group.signal(syscall.SIGTERM)
		s.kill = time.Now().Add(s.f.grace)
	}
	for !s.group.empty() && time.Now().Before(s.kill) {
		time.Sleep(drainPoll)
	}
	if s.group.empty() {
		return
	}
	s.group.signal(syscall.SIGKILL)
	for end := time.Now().Add(time.Second); !s.group.empty() && time.Now().Before(end); {
		time.Sleep(drainPoll)
	}
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
