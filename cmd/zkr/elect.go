package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// electHelp is the longer help of `zkr elect`.
const electHelp = `Waits to lead the election at PATH, runs COMMAND while it leads, and exits
with COMMAND's status. The election is Curator's LeaderSelector (a mutex
at PATH, the participant id as its node's data): Go and Java (Curator
5.x) participants on the same PATH take turns with zkr, one at a time.

COMMAND runs in a process group of its own, as under zkr lock. When the
term is lost (a suspended connection, the session's lease run out, the
session expired, the node deleted by someone else), the group gets
SIGTERM, SIGKILL after --grace, and zkr exits 5 (--on-lost=ignore lets it
run); the node, which keeps every other participant out, is deleted only
once the group is gone. SIGINT and SIGTERM to zkr are passed on to the
group, which gets SIGKILL after --grace if it is still there; then zkr
deletes its node and closes its session, so that the next participant
leads at once (a rolling restart hands off without waiting for a session
timeout), and exits with COMMAND's status. SIGHUP is passed on only.
Between terms any of them ends zkr with 128+N.

With --requeue zkr queues again each time a term ends, whatever COMMAND's
status or the cause of a loss, and runs COMMAND again each time it leads,
until a signal ends it. After COMMAND failed on its own it waits first
(250 ms, doubling to 30 s while it keeps failing), and another participant
leads meanwhile. A term lost to a connection blip that the session
survives keeps its node: still first once reconnected, zkr leads again on
it, with the same fencing token. --timeout bounds the first wait only (the
connection included; not 0: a selector has no single try); once zkr has
led, it waits as long as it takes.

COMMAND's environment has
  ZKR_FENCING_TOKEN  the term's node's creation zxid: it never decreases
                     from one term to the next and grows whenever another
                     node leads, so the resource COMMAND guards can refuse
                     a leader whose term has ended
  ZKR_LEADER_NODE    the term's node's path
  ZKR_LEADER_ID      the participant id (--id)`

// setupElect is `zkr elect PATH -- COMMAND`.
func setupElect(fs *flag.FlagSet, conn *connFlags) runFunc {
	var a acquireFlags
	a.register(fs)
	// The lock commands' --timeout offers 0 as one try; a selector has no
	// such try, and a term ends --timeout's hold over the wait.
	fs.Lookup("timeout").Usage = "give up waiting for the first term after `duration` (positive: a selector has no single try), " +
		"the connection included, with status 4 (3 if no session by then); default: wait as long as it takes"
	host, _ := os.Hostname()
	id := fmt.Sprintf("%s:%d", host, os.Getpid())
	fs.Func("id", "the participant `id`, its node's data, by which Go and Java (Curator's getParticipants) name it (default hostname:pid)",
		func(s string) error { id = s; return nil })
	requeue := fs.Bool("requeue", false, "queue again after every term and run COMMAND each time zkr leads, until a signal ends zkr")
	return func(ctx context.Context, e *env, args, child []string) error {
		if err := a.check(); err != nil {
			return err
		}
		if a.hasTimeout && a.timeout == 0 {
			return usagef("elect: --timeout must be positive: a selector has no single try")
		}
		client, err := conn.newClient(e)
		if err != nil {
			return err
		}
		defer client.Close()
		// The client logs errors only; the selector's own warnings (a
		// COMMAND slow to stop keeps the successor out) are news here.
		warnings := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		opts := []leader.Option{leader.WithID(id), leader.WithErrorPolicy(a.policy), leader.WithLogger(warnings)}
		if *requeue {
			opts = append(opts, leader.WithAutoRequeue())
		}
		return runElection(ctx, e, conn, client, args[0], opts, a, *requeue, child)
	}
}

// runElection connects, runs a Selector at path until it returns (once,
// or until a signal with requeue), and closes it: the client, closed by
// the caller next, takes the session and anything the Selector left with
// it.
func runElection(ctx context.Context, e *env, conn *connFlags, client *framework.Client, path string,
	opts []leader.Option, a acquireFlags, requeue bool, child []string) error {
	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	el := &election{what: "elect " + path, stop: stop}
	sel, err := leader.NewSelector(client, path, func(tctx context.Context) error {
		signals, err := el.begin()
		if err != nil {
			return err
		}
		result := runTerm(tctx, e, el.what, signals, child, a.childFlags)
		el.end(result)
		return result
	}, opts...)
	if err != nil {
		return err
	}
	stopListening := el.listen(e)
	defer stopListening()
	left, err := a.connect(runCtx, e, conn, client)
	if err != nil {
		return err
	}
	if a.hasTimeout {
		timer := time.AfterFunc(left, func() { el.timeUp(client.State().IsConnected(), a.timeout) })
		defer timer.Stop()
	}
	err = sel.Run(runCtx)
	stopListening()
	cctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	if cerr := sel.Close(cctx); cerr != nil {
		fmt.Fprintf(e.stderr, "zkr: %s: %s (the node goes with the session)\n", el.what, oneLine(cerr))
	}
	return el.outcome(runCtx, err, requeue)
}

// runTerm runs COMMAND for the term that tctx, the Selector's function's
// context, stands for, passing on signals from signals. The term's node is
// the Selector's to delete, after runTerm returns: so only once COMMAND's
// group is gone.
func runTerm(tctx context.Context, e *env, what string, signals chan os.Signal, child []string, f childFlags) error {
	term, ok := leader.LeadershipFrom(tctx)
	if !ok {
		return fmt.Errorf("%s: no term in the selector's context", what)
	}
	te := *e
	te.signals = signals
	h := held{
		what: what, lost: lossOf(term), err: term.Err,
		env: []string{"ZKR_LEADER_NODE=" + term.Node(), "ZKR_LEADER_ID=" + term.ID()},
		// The Selector deletes the node once this function has returned.
		release:     func(context.Context) error { return nil },
		signalStops: true,
	}
	// A signal as the term begins is passed on once COMMAND runs: the
	// token is read under a context that the signal does not end.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(tctx), releaseTimeout)
	defer cancel()
	return runWithToken(rctx, &te, h, term.FencingToken, child, f)
}

// lossOf returns a channel closed when term ends by a loss. A term also
// ends, with another cause, when zkr stops (a signal, Close): COMMAND then
// has the signal already, and its own status is zkr's.
func lossOf(term *leader.Leadership) <-chan struct{} {
	lost := make(chan struct{})
	// Ends when the term does, at the latest once the Selector's function
	// has returned.
	go func() {
		<-term.Lost()
		if errors.Is(term.Err(), leader.ErrLost) {
			close(lost)
		}
	}()
	return lost
}
