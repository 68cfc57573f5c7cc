package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strconv"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/atomicvalue"
)

// counterHelp is the longer help of `zkr counter`.
const counterHelp = `Reads (get), adds N to (add) or sets (set) the counter at PATH, and prints
its value after. The counter is Curator's DistributedAtomicLong (8 bytes,
big-endian; --int: DistributedAtomicInteger, 4 bytes), recipes/atomicvalue:
zkr, Go and Java processes count on one node together. A missing counter
reads 0; add and set create it, with its parents. N may be negative
(zkr counter add PATH -1).

add and set read the node and write it back conditionally on the version
read, trying again while other writers come first (up to 10 retries, 5 ms
to 500 ms apart); --lock PATH then tries once more holding that mutex
(Curator's PromotedToLock), which every updater should name. An update
that other writers beat on every try writes nothing and exits 4. A node
that does not hold such a counter (not 8 bytes, or 4 with --int) is
refused with nothing written (status 1), unless set --force, which writes
over whatever is there. An update whose answer was lost in a connection
failure ran once or not at all: zkr says so (status 1); read the counter
before trying again.

--json prints one object: {"path", "value", and for add and set
"previous", "optimistic_tries", "promoted_tries"}.`

// counterFlags are the flags of `zkr counter`.
type counterFlags struct {
	isInt  bool // --int
	json   bool
	force  bool
	lock   string
	verb   string
	amount int64 // N of add and set, in the counter's range
}

// setupCounter is `zkr counter get|add|set PATH [N]`.
func setupCounter(fs *flag.FlagSet, conn *connFlags) runFunc {
	var f counterFlags
	fs.BoolVar(&f.isInt, "int", false, "a 4-byte counter (Curator's DistributedAtomicInteger) instead of 8 bytes")
	fs.BoolVar(&f.json, "json", false, "print one JSON object instead of the value")
	fs.BoolVar(&f.force, "force", false, "set: write over whatever the node holds, a node that is no counter too, without a version check")
	fs.StringVar(&f.lock, "lock", "", "add, set: when other writers beat every try, try once more holding the mutex at `path`")
	return func(ctx context.Context, e *env, args, _ []string) error {
		if err := f.parse(args); err != nil {
			return err
		}
		client, err := conn.newClient(e)
		if err != nil {
			return err
		}
		defer client.Close()
		op, err := f.op(client, args[1])
		if err != nil {
			return err
		}
		ctx, stop := cancelOnSignal(ctx, e)
		defer stop()
		if err := conn.waitConnected(ctx, e, client, -1); err != nil {
			return interrupted(ctx, err)
		}
		r, err := op(ctx)
		if err != nil {
			return interrupted(ctx, fmt.Errorf("counter %s %s: %w", f.verb, args[1], err))
		}
		return f.print(e, args[1], r)
	}
}

// parse checks the verb, N and the flags that go with them.
func (f *counterFlags) parse(args []string) error {
	f.verb = args[0]
	switch f.verb {
	case "get":
		if len(args) != 2 {
			return usagef("counter get takes PATH only: zkr counter get PATH")
		}
	case "add", "set":
		if len(args) != 3 {
			return usagef("counter %s needs N: zkr counter %s PATH N", f.verb, f.verb)
		}
		bits := 64
		if f.isInt {
			bits = 32
		}
		n, err := strconv.ParseInt(args[2], 10, bits)
		if err != nil {
			return usagef("counter %s: N must be an integer that fits %d bits, not %q", f.verb, bits, args[2])
		}
		f.amount = n
	default:
		return usagef("counter takes get, add or set, not %q: zkr counter get|add|set PATH [N]", f.verb)
	}
	if f.force && f.verb != "set" {
		return usagef("counter: --force is for set only")
	}
	if f.lock != "" && f.verb == "get" {
		return usagef("counter: --lock is for add and set")
	}
	return nil
}

// counterResult is what a counter command prints, and with --json how.
type counterResult struct {
	Path            string `json:"path"`
	Value           int64  `json:"value"`
	Previous        *int64 `json:"previous,omitempty"`
	OptimisticTries *int   `json:"optimistic_tries,omitempty"`
	PromotedTries   *int   `json:"promoted_tries,omitempty"`
}

// print writes the value, or the JSON object.
func (f *counterFlags) print(e *env, path string, r atomicvalue.Result[int64]) error {
	out := counterResult{Path: path, Value: r.PostValue}
	if f.verb != "get" && !f.force { // a forced set reads nothing
		out.Previous, out.OptimisticTries, out.PromotedTries = &r.PreValue, &r.Stats.OptimisticTries, &r.Stats.PromotedTries
	}
	if !f.json {
		fmt.Fprintln(e.stdout, out.Value)
		return nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s\n", b)
	return nil
}

// op returns the verb on the counter at path, as a 64-bit Result
// whatever the counter's size. It checks the paths and does no I/O.
func (f *counterFlags) op(client *framework.Client, path string) (func(context.Context) (atomicvalue.Result[int64], error), error) {
	var opts []atomicvalue.Option
	if f.lock != "" {
		opts = append(opts, atomicvalue.WithPromotedToLock(atomicvalue.PromotedToLock{Path: f.lock}))
	}
	if f.isInt {
		n, err := atomicvalue.NewInt(client, path, opts...)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context) (atomicvalue.Result[int64], error) {
			r, err := counterVerb(ctx, n, f.verb, int32(f.amount), f.force)
			return widen(r), err
		}, nil
	}
	n, err := atomicvalue.NewLong(client, path, opts...)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (atomicvalue.Result[int64], error) {
		return counterVerb(ctx, n, f.verb, f.amount, f.force)
	}, nil
}

// counterVerb runs get, add or set on n. An update that did not succeed is
// errBeaten.
func counterVerb[T int32 | int64](ctx context.Context, n *atomicvalue.Number[T], verb string, amount T, force bool) (atomicvalue.Result[T], error) {
	var r atomicvalue.Result[T]
	var err error
	switch {
	case verb == "get":
		return n.Get(ctx)
	case verb == "set" && force:
		err = n.ForceSet(ctx, amount)
		r = atomicvalue.Result[T]{Succeeded: true, PostValue: amount}
	case verb == "set":
		r, err = n.TrySet(ctx, amount)
	default:
		r, err = n.Add(ctx, amount)
	}
	switch {
	case errors.Is(err, atomicvalue.ErrOutcomeUnknown):
		return r, fmt.Errorf("%w (it ran once or not at all: read the counter before trying again)", err)
	case err == nil && !r.Succeeded:
		return r, fmt.Errorf("%w on each of %d tries (%d under --lock); nothing written", errBeaten,
			r.Stats.OptimisticTries+r.Stats.PromotedTries, r.Stats.PromotedTries)
	}
	return r, err
}

// widen returns a 32-bit counter's result as a 64-bit one.
func widen(r atomicvalue.Result[int32]) atomicvalue.Result[int64] {
	return atomicvalue.Result[int64]{Succeeded: r.Succeeded, PreValue: int64(r.PreValue), PostValue: int64(r.PostValue), Stats: r.Stats}
}
