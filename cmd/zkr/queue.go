package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

// queueHelp is the longer help of `zkr queue`.
const queueHelp = `Curator's distributed queues (recipes/queue): zkr, Go and Java processes
put into and take from the same ones.

  put PATH ITEM...  puts each ITEM into the queue, one node each, in order
                    (--multi: all in one node, all or none, as Curator's
                    putMulti); prints how many
  take PATH         takes one node's items, prints each on a line, exits 0;
                    waits until there is one (--timeout: exits 4 when none
                    came in time)
  ls PATH           lists the items in the queue, in the order a consumer
                    of --kind takes them, with (locked) for those a consumer
                    holds (with --lock-path); reads only

--kind says the queue's kind: queue (DistributedQueue, the default),
priority (DistributedPriorityQueue), delay (DistributedDelayQueue), id
(DistributedIdQueue) or simple (SimpleDistributedQueue: raw bytes, no lock
path, no --multi). put sets the kind from --priority N (lower first),
--delay D (taken no sooner than D from now) or --id ID. Give take and ls
the kind too: a delay queue's consumer waits for each item's time.

Without --lock-path, take deletes the item before printing it: at most
once (Curator's default), and a put whose answer was lost in a connection
failure ran once or not at all: zkr says so (status 1). With --lock-path
(Curator's lockPath; every consumer of the queue must name the same),
take holds the item's lock node while it prints and deletes the item only
after the print succeeded: at least once, since an item whose delete did
not run (zkr's session lost meanwhile) goes to the next taker, and zkr
warns of it; a put whose answer was lost is then neither lost nor
repeated.

--json prints one object per item for take ({"path", "item"}, or
"item_base64" for bytes that are not UTF-8) and one for ls ({"path",
"nodes": [{"node", "items" or "items_base64", "locked", "malformed"}]}).`

// queueKinds are the kinds --kind takes.
var queueKinds = []string{"queue", "priority", "delay", "id", "simple"}

// queueFlags are the flags of `zkr queue`.
type queueFlags struct {
	kind     string
	lockPath string
	multi    bool
	json     bool
	priority int
	delay    time.Duration
	id       string
	// implied is the kind that --priority, --delay or --id set; "" if none.
	implied string
	acquireFlags
}

// setupQueue is `zkr queue put|take|ls PATH [ITEM...]`.
func setupQueue(fs *flag.FlagSet, conn *connFlags) runFunc {
	var f queueFlags
	f.register(fs)
	return func(ctx context.Context, e *env, args, _ []string) error {
		if err := f.check(args); err != nil {
			return err
		}
		client, err := conn.newClient(e)
		if err != nil {
			return err
		}
		defer client.Close()
		verb, path := args[0], args[1]
		// The recipe's warnings (an item not taken, a malformed node) are
		// the user's to see; the client's own logging stays at errors.
		logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		q, err := f.open(client, path, logger)
		if err != nil {
			return err
		}
		ctx, stop := cancelOnSignal(ctx, e)
		defer stop()
		timeout, err := f.connect(ctx, e, conn, client)
		if err != nil {
			return err
		}
		what := "queue " + verb + " " + path
		switch verb {
		case "put":
			err = f.put(ctx, e, what, q, args[2:])
		case "take":
			err = f.take(ctx, e, client, what, q, timeout)
		default:
			err = f.list(ctx, e, client, what, path)
		}
		if err != nil {
			// A put applied or an item printed as a signal came stays done.
			return interrupted(ctx, err)
		}
		return nil
	}
}

// register registers the flags of `zkr queue` on fs.
func (f *queueFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.kind, "kind", "", "the queue's `kind`: queue, priority, delay, id or simple (default queue, or what --priority, --delay or --id say)")
	fs.StringVar(&f.lockPath, "lock-path", "", "the queue's lock `path` (Curator's lockPath): take holds the item's lock while it prints it; puts are exact")
	fs.BoolVar(&f.multi, "multi", false, "put: all ITEMs in one node, all or none (Curator's putMulti)")
	fs.BoolVar(&f.json, "json", false, "take: print one JSON object per item; ls: one for the queue")
	fs.Func("priority", "put: into a priority queue with priority `N`, a Java int; lower numbers go first", func(s string) error {
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return fmt.Errorf("takes an integer that fits 32 bits, not %q", s)
		}
		f.priority = int(n)
		return f.imply("priority")
	})
	fs.Func("delay", "put: into a delay queue, to be taken no sooner than `duration` from now", func(s string) error {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return fmt.Errorf("bad duration %q", s)
		}
		f.delay = d
		return f.imply("delay")
	})
	fs.Func("id", "put: into an id queue, under `ID` (Curator's DistributedIdQueue)", func(s string) error {
		if s == "" {
			return fmt.Errorf("takes a non-empty ID")
		}
		f.id = s
		return f.imply("id")
	})
	f.registerTimeout(fs, "take: give up after `duration` (positive), the connection included, with status 4 when no item came (3 if no session by then)")
}

// imply records the kind a put flag sets; two of them are an error.
func (f *queueFlags) imply(kind string) error {
	if f.implied != "" && f.implied != kind {
		return fmt.Errorf("goes with none of --priority, --delay and --id but itself")
	}
	f.implied = kind
	return nil
}

// check validates the verb, the items and the flags that go with them,
// and settles the kind.
func (f *queueFlags) check(args []string) error {
	verb := args[0]
	switch verb {
	case "put":
		if len(args) < 3 {
			return usagef("queue put needs ITEM: zkr queue put PATH ITEM...")
		}
	case "take", "ls":
		if len(args) != 2 {
			return usagef("queue %s takes PATH only: zkr queue %s PATH", verb, verb)
		}
	default:
		return usagef("queue takes put, take or ls, not %q: zkr queue put|take|ls PATH [ITEM...]", verb)
	}
	if f.implied != "" && verb != "put" {
		return usagef("queue: --priority, --delay and --id are for put (give take and ls --kind %s)", f.implied)
	}
	if err := f.settleKind(); err != nil {
		return err
	}
	switch {
	case f.multi && verb != "put":
		return usagef("queue: --multi is for put")
	case f.multi && (f.kind == "id" || f.kind == "simple"):
		return usagef("queue: --multi does not go with an %s queue: it puts one item per node", f.kind)
	case f.lockPath != "" && f.kind == "simple":
		return usagef("queue: a simple queue takes no --lock-path")
	case f.json && verb == "put":
		return usagef("queue: --json is for take and ls")
	case f.hasTimeout && (verb != "take" || f.timeout == 0):
		return usagef("queue: --timeout takes a positive duration, for take")
	}
	return nil
}

// settleKind sets the kind from --kind or the put flag that implies it.
func (f *queueFlags) settleKind() error {
	switch {
	case f.kind == "":
		f.kind = f.implied
		if f.kind == "" {
			f.kind = "queue"
		}
		return nil
	case f.implied != "" && f.kind != f.implied:
		return usagef("queue: --kind %s does not go with --%s", f.kind, f.implied)
	}
	for _, k := range queueKinds {
		if f.kind == k {
			return nil
		}
	}
	return usagef("queue: --kind takes queue, priority, delay, id or simple, not %q", f.kind)
}

// put puts the items, one node each or all in one (--multi), and says
// how many it put.
func (f *queueFlags) put(ctx context.Context, e *env, what string, q *openQueue, items []string) error {
	defer q.close()
	nodes := make([][][]byte, 0, len(items))
	if f.multi {
		nodes = append(nodes, asBytes(items))
	} else {
		for _, it := range items {
			nodes = append(nodes, [][]byte{[]byte(it)})
		}
	}
	for i, node := range nodes {
		if err := q.put(ctx, node); err != nil {
			if errors.Is(err, queue.ErrOutcomeUnknown) {
				err = fmt.Errorf("%w (it was put once or not at all: look with zkr queue ls before putting it again; --lock-path makes such puts exact)", err)
			}
			if i > 0 {
				return fmt.Errorf("%s: %d of %d put, then: %w", what, i, len(nodes), err)
			}
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	fmt.Fprintf(e.stdout, "queue put: %s (%d items)\n", q.path, len(items))
	return nil
}

// asBytes returns the items as bytes.
func asBytes(items []string) [][]byte {
	out := make([][]byte, len(items))
	for i, it := range items {
		out[i] = []byte(it)
	}
	return out
}

// openQueue is a queue of any kind, as zkr puts into and takes from it.
type openQueue struct {
	path string
	// put puts items in one node (a simple queue: the first item).
	put func(ctx context.Context, items [][]byte) error
	// newConsumer makes a consumer of a typed queue; simple is the
	// simple queue instead.
	newConsumer func(fn queue.Func[[]byte]) (*queue.Consumer[[]byte], error)
	simple      *queue.Simple
	close       func() // ends the producer
}

// open returns the queue of the kind at path. It validates and does no
// I/O.
func (f *queueFlags) open(client *framework.Client, path string, logger *slog.Logger) (*openQueue, error) {
	opts := []queue.Option{queue.WithLogger(logger)}
	if f.kind == "simple" {
		s, err := queue.NewSimple(client, path, opts...)
		if err != nil {
			return nil, err
		}
		put := func(ctx context.Context, items [][]byte) error { return s.Offer(ctx, items[0]) }
		return &openQueue{path: path, put: put, simple: s, close: func() {}}, nil
	}
	if f.lockPath != "" {
		opts = append(opts, queue.WithLockPath(f.lockPath))
	}
	codec := queue.BytesCodec{}
	switch f.kind {
	case "priority":
		q, err := queue.NewPriorityQueue(client, path, codec, opts...)
		if err != nil {
			return nil, err
		}
		return typed(path, q, q.NewConsumer, func(ctx context.Context, items [][]byte) error { return q.PutMulti(ctx, items, f.priority) }), nil
	case "delay":
		q, err := queue.NewDelayQueue(client, path, codec, opts...)
		if err != nil {
			return nil, err
		}
		return typed(path, q, q.NewConsumer, func(ctx context.Context, items [][]byte) error {
			return q.PutMulti(ctx, items, time.Now().Add(f.delay))
		}), nil
	case "id":
		q, err := queue.NewIDQueue(client, path, codec, opts...)
		if err != nil {
			return nil, err
		}
		return typed(path, q, q.NewConsumer, func(ctx context.Context, items [][]byte) error { return q.Put(ctx, items[0], f.id) }), nil
	}
	q, err := queue.New(client, path, codec, opts...)
	if err != nil {
		return nil, err
	}
	return typed(path, q, q.NewConsumer, q.PutMulti), nil
}

// typed returns one of the typed queues as an openQueue.
func typed(path string, q interface{ Close(context.Context) error },
	newConsumer func(queue.Func[[]byte], ...queue.Option) (*queue.Consumer[[]byte], error),
	put func(ctx context.Context, items [][]byte) error) *openQueue {
	return &openQueue{
		path: path, put: put,
		newConsumer: func(fn queue.Func[[]byte]) (*queue.Consumer[[]byte], error) { return newConsumer(fn) },
		close: func() {
			// Deletes the producer's marker in the lock path, if it made one.
			ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
			defer cancel()
			_ = q.Close(ctx)
		},
	}
}
