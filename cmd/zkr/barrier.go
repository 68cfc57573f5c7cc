package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/barrier"
)

// barrierHelp is the longer help of `zkr barrier`.
const barrierHelp = `Curator's barriers (recipes/barrier): zkr, Go and Java processes wait at
the same ones.

  set PATH     creates the barrier's node (Curator's DistributedBarrier)
  remove PATH  deletes it, which lets every waiter through
  wait PATH    blocks while the node exists; exits 0 once it is gone (at
               once if it is not set), 4 if --timeout runs out first
  enter PATH --members N -- COMMAND [ARGS]
               enters the double barrier at PATH (Curator's
               DistributedDoubleBarrier): waits until N members are in,
               runs COMMAND, then leaves, waiting until every member has
               left, and exits with COMMAND's status

--timeout bounds the wait of wait and enter (a member that gives up
leaves nothing behind). A member's COMMAND runs as under zkr lock (its
own process group, signals passed on, --grace); it is the member's
session that can be lost: then COMMAND is stopped (--on-lost=term) and
zkr exits 5, since the others no longer count it. A member that is lost
before it leaves exits 5 too; a signal while it waits for the others to
leave makes it leave without them (128+N).

COMMAND's environment has
  ZKR_MEMBER_NODE  the member's node (PATH/<uuid>)`

// barrierFlags are the flags of `zkr barrier`.
type barrierFlags struct {
	members int
	acquireFlags
}

// setupBarrier is `zkr barrier set|remove|wait|enter PATH [-- COMMAND]`.
func setupBarrier(fs *flag.FlagSet, conn *connFlags) runFunc {
	var f barrierFlags
	fs.IntVar(&f.members, "members", 0, "enter: the `N` members the double barrier waits for (at least 1)")
	f.registerTimeout(fs, "wait, enter: give up waiting after `duration` (positive), the connection included, with status 4 (3 if no session by then)")
	f.childFlags.register(fs)
	return func(ctx context.Context, e *env, args, child []string) error {
		if err := f.check(args[0], child); err != nil {
			return err
		}
		client, err := conn.newClient(e)
		if err != nil {
			return err
		}
		defer client.Close()
		if args[0] == "enter" {
			return f.enter(ctx, e, conn, client, args[1], child)
		}
		b, err := barrier.New(client, args[1])
		if err != nil {
			return err
		}
		ctx, stop := cancelOnSignal(ctx, e)
		defer stop()
		timeout, err := f.connect(ctx, e, conn, client)
		if err != nil {
			return err
		}
		return interrupted(ctx, f.single(ctx, e, b, args[0], timeout))
	}
}

// check validates the verb, COMMAND and the flags that go with them.
func (f *barrierFlags) check(verb string, child []string) error {
	switch verb {
	case "set", "remove", "wait":
		if child != nil {
			return usagef("barrier %s runs no COMMAND: zkr barrier %s PATH", verb, verb)
		}
		if f.members != 0 {
			return usagef("barrier: --members is for enter")
		}
	case "enter":
		if len(child) == 0 {
			return usagef("barrier enter needs -- COMMAND [ARGS]: zkr barrier enter PATH --members N -- COMMAND [ARGS]")
		}
		if f.members < 1 {
			return usagef("barrier enter needs --members N (at least 1)")
		}
	default:
		return usagef("barrier takes set, remove, wait or enter, not %q: zkr barrier set|remove|wait|enter PATH", verb)
	}
	if f.hasTimeout && (f.timeout == 0 || verb == "set" || verb == "remove") {
		return usagef("barrier: --timeout takes a positive duration, for wait and enter")
	}
	return f.childFlags.check()
}

// single runs set, remove or wait on the barrier b, waiting at most
// timeout (negative: no bound).
func (f *barrierFlags) single(ctx context.Context, e *env, b *barrier.Barrier, verb string, timeout time.Duration) error {
	switch verb {
	case "set":
		if err := b.Set(ctx); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "barrier set: %s\n", b.Path())
		return nil
	case "remove":
		if err := b.Remove(ctx); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "barrier removed: %s\n", b.Path())
		return nil
	}
	wctx, cancel := withTimeout(ctx, timeout)
	defer cancel()
	err := b.Wait(wctx)
	if err != nil && ctx.Err() == nil && wctx.Err() != nil {
		return fmt.Errorf("barrier wait %s: %w: --timeout (%v) ran out while the barrier stood", b.Path(), errTimedOut, f.timeout)
	}
	return err
}

// withTimeout is context.WithTimeout, or no bound for a negative timeout.
func withTimeout(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout < 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, timeout)
}

// enter enters the double barrier at path, runs COMMAND, and leaves.
func (f *barrierFlags) enter(ctx context.Context, e *env, conn *connFlags, client *framework.Client, path string, child []string) error {
	d, err := barrier.NewDouble(client, path, f.members)
	if err != nil {
		return err
	}
	what := "barrier enter " + path
	member, err := waitFor(ctx, e, conn, client, f.acquireFlags, what, func(ctx context.Context, timeout time.Duration) (*barrier.Member, error) {
		ectx, cancel := withTimeout(ctx, timeout)
		defer cancel()
		m, err := d.Enter(ectx)
		if err != nil && ctx.Err() == nil && ectx.Err() != nil {
			return nil, fmt.Errorf("%s: %w: --timeout (%v) ran out before %d members were in", what, errTimedOut, f.timeout, f.members)
		}
		return m, err
	}, leaveAtOnce)
	if err != nil {
		return err
	}
	lost, why := memberLoss(client)
	h := held{
		what: what, lost: lost, err: why,
		env:     []string{"ZKR_MEMBER_NODE=" + member.Node()},
		release: func(context.Context) error { return nil }, // the member leaves after COMMAND, below
	}
	err = runHolding(e, h, child, f.childFlags)
	if lerr := leave(ctx, e, what, member); lerr != nil && (err == nil || isQuiet(err)) {
		return lerr // COMMAND ran, but the member did not leave with the others
	}
	return err
}

// memberLoss returns a channel closed when the session of a member just
// entered is lost, and the error that says so (nil before). The client's
// session now is the member's, or one after it, when the member's is lost
// already (Leave then says so too); none is one lost already.
func memberLoss(client *framework.Client) (<-chan struct{}, func() error) {
	s := client.Session()
	if s == nil {
		closed := make(chan struct{})
		close(closed)
		return closed, func() error { return fmt.Errorf("%w: the member's session is lost", barrier.ErrLost) }
	}
	return s.Lost(), func() error {
		if s.IsLost() {
			return fmt.Errorf("%w: the member's session is lost", barrier.ErrLost)
		}
		return nil
	}
}

// leave takes the member out, waiting for the others until zkr is
// signalled: then it leaves without them.
func leave(ctx context.Context, e *env, what string, m *barrier.Member) error {
	ctx, stop := cancelOnSignal(ctx, e)
	defer stop()
	err := m.Leave(ctx)
	if errors.Is(err, barrier.ErrLost) {
		return fmt.Errorf("%w: %s: %v", errLostHold, what, err)
	}
	if err != nil && unreachable(ctx, err) {
		return unreachableErr{err}
	}
	return interrupted(ctx, err)
}

// leaveAtOnce takes out a member that a signal overtook as it entered,
// without waiting for the others: its Leave deletes its node when its ctx
// has ended.
func leaveAtOnce(ctx context.Context, m *barrier.Member) error {
	ended, cancel := context.WithCancel(ctx)
	cancel()
	if err := m.Leave(ended); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}
