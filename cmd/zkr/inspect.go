package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sort"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
)

// What inspect reports as the recipe at a path.
const (
	recipeMutex     = "mutex"     // <path>/_c_<uuid>-lock-<seq>
	recipeElection  = "election"  // a leader selector's: a mutex whose nodes carry participant ids
	recipeLatch     = "latch"     // <path>/_c_<uuid>-latch-<seq>
	recipeSemaphore = "semaphore" // <path>/locks and <path>/leases
	recipeRWLock    = "rwlock"    // <path>/_c_<uuid>-__READ__<seq>, -__WRIT__<seq>
	recipeEmpty     = "empty"     // the node exists and has no children
	recipeNone      = "none"      // there is no node at the path
	recipeUnknown   = "unknown"   // children of no known recipe
)

// Report is what `zkr inspect --json` prints: one JSON object per look.
// Its shape is stable; fields may be added, none removed or renamed.
type Report struct {
	Path   string `json:"path"`   // the path inspected, as given
	Recipe string `json:"recipe"` // mutex, election, latch, semaphore, rwlock, empty, none or unknown
	// Max is the semaphore's maximum, from --count-path or --leases; 0 when
	// unknown.
	Max       int    `json:"max,omitempty"`
	CountPath string `json:"count_path,omitempty"`
	// Holders hold the lock or a lease, or lead the latch, in queue order.
	Holders []Node `json:"holders"`
	// Waiters wait, in queue order: a semaphore's lease nodes beyond the
	// maximum, then its guard queue (under locks/), whose first node is
	// the acquirer taking a lease right now.
	Waiters []Node `json:"waiters"`
	// Others are children of no known recipe, which never hold.
	Others []Node `json:"others"`
}

// Node is one lock or lease node.
type Node struct {
	Name         string `json:"name"`            // the node's name
	Path         string `json:"path"`            // its full path
	ProtectionID string `json:"protection_id"`   // the UUID of a protected name, or ""
	Sequence     int64  `json:"sequence"`        // the server's sequence suffix, or -1
	Kind         string `json:"kind"`            // lock, latch, lease, read, write or other
	Role         string `json:"role"`            // holder, leader, waiter, acquiring or other
	Session      string `json:"session"`         // the owner session id in hex, "0x0" if not ephemeral
	Created      string `json:"created"`         // creation time, RFC 3339, or "" when the server gives none
	AgeMS        int64  `json:"age_ms"`          // milliseconds since creation, or -1 when unknown
	Data         string `json:"data"`            // the data when printable UTF-8, else ""; a lease's own, after its stamp
	DataHex      string `json:"data_hex"`        // the data in hex; a lease's own, after its stamp
	Lease        *Lease `json:"lease,omitempty"` // the stamp of a time-bounded lease
}

// inspectHelp is the longer help of `zkr inspect`.
const inspectHelp = `Reads PATH and tells what it holds, from the node names: a mutex queue
(_c_<uuid>-lock-<seq>), a leader selector's election (zkr elect's,
Curator's LeaderSelector: a mutex queue whose nodes carry participant
ids), a leader latch's election (_c_<uuid>-latch-<seq>; the first node
leads, the data is the participant id), a semaphore (PATH/leases and
PATH/locks), or a read/write lock queue (_c_<uuid>-__READ__<seq>,
_c_<uuid>-__WRIT__<seq>). A selector's nodes are a mutex's on the wire; only
their data tells them apart, so inspect calls the queue an election when
every lock node's data is a participant id: text that is not empty, not
zkr lock's own ("zkr HOST pid N: COMMAND"), not an IP address (Curator's
default data, which its mutex writes and a selector without an id too),
and not a revocation request (__REVOKE__). A mutex whose nodes all carry
other text (mutex.WithData) is shown as an election too; a selector
without ids, as a mutex.
It lists holders, then waiters, in queue order, each with its position,
role, kind, sequence, owner session (hex; "persistent" for a node without
one, such as a TTL lease), age, protection id, node name and data (quoted
text, or hex). A time-bounded lease's stamp is decoded: its mode (session
or ttl), bound, last renewal, renewals and holder, then its own data. For
a semaphore, give --count-path or --leases for its maximum; without it, the
newest lease node of the acquirer at the head of the guard queue is shown
as acquiring, the others as holding. It writes nothing.

--json prints one object: {"path", "recipe" (mutex, election, latch, semaphore,
rwlock, empty, none, unknown), "max", "count_path", "holders", "waiters", "others"},
each node {"name", "path", "protection_id", "sequence", "kind", "role",
"session", "created", "age_ms", "data", "data_hex", and for a time-bounded
lease "lease": {"mode", "bound_ms", "renewed", "renewals", "holder"}}. Under --watch it prints
one such object per line on every change; Ctrl-C ends it with status 0.`

// setupInspect is `zkr inspect PATH`.
func setupInspect(fs *flag.FlagSet, conn *connFlags) runFunc {
	asJSON := fs.Bool("json", false, "print one JSON object (see the README for its shape) instead of a table")
	watch := fs.Bool("watch", false, "look again on every change until interrupted")
	countPath := fs.String("count-path", "", "a semaphore's shared count `path`, for its maximum")
	leaseCount := fs.Int("leases", 0, "a semaphore's maximum `N`, when it has no count node")
	return func(ctx context.Context, e *env, args, _ []string) error {
		if *leaseCount < 0 {
			return usagef("--leases must not be negative")
		}
		client, err := conn.newClient(e)
		if err != nil {
			return err
		}
		defer client.Close()
		if _, err := client.ServerPath(args[0]); err != nil {
			return err
		}
		ctx, stop := cancelOnSignal(ctx, e)
		defer stop()
		if err := conn.waitConnected(ctx, e, client, -1); err != nil {
			return interrupted(ctx, err)
		}
		in := inspector{client: client, path: args[0], countPath: *countPath, maxLeases: *leaseCount}
		return in.show(ctx, e, *asJSON, *watch)
	}
}

// show prints what the path holds, once or, with watch, on every change
// until zkr is interrupted.
func (in *inspector) show(ctx context.Context, e *env, asJSON, watch bool) error {
	for {
		r, changed, err := in.look(ctx, watch)
		if watch && errors.Is(context.Cause(ctx), errInterrupted) {
			return nil // --watch ends with Ctrl-C
		}
		if err != nil {
			return interrupted(ctx, err)
		}
		if asJSON {
			err = printJSON(e.stdout, r, watch)
		} else {
			if watch && e.terminal {
				fmt.Fprint(e.stdout, "\x1b[H\x1b[2J")
			} else if watch {
				fmt.Fprintf(e.stdout, "--- %s\n", time.Now().Format(time.TimeOnly))
			}
			err = printTable(e.stdout, r)
		}
		if err != nil || !watch {
			return err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), errInterrupted) {
				return nil // --watch ends with Ctrl-C
			}
			return ctx.Err()
		}
	}
}

// inspector reads what a path holds.
type inspector struct {
	client    *framework.Client
	path      string
	countPath string
	maxLeases int
}

// look reads the path once; with watch, the channel is closed on the next
// change of anything it read.
func (in *inspector) look(ctx context.Context, watch bool) (Report, <-chan struct{}, error) {
	w := newWatcher(ctx)
	r := Report{Path: in.path, Holders: []Node{}, Waiters: []Node{}, Others: []Node{}}
	names, err := in.children(ctx, in.path, watch, w)
	if err != nil {
		return r, nil, err
	}
	switch {
	case names == nil:
		r.Recipe = recipeNone
	case len(names) == 0:
		r.Recipe = recipeEmpty
	case contains(names, "leases") || contains(names, "locks"):
		r.Recipe = recipeSemaphore
		err = in.semaphore(ctx, &r, watch, w)
	case anyContains(names, readMarker, writeMarker):
		r.Recipe = recipeRWLock
		err = in.queue(ctx, &r, in.path, names, rwRoles, readMarker, writeMarker)
	case anyContains(names, latchMarker):
		r.Recipe = recipeLatch
		err = in.queue(ctx, &r, in.path, names, latchRoles, latchMarker)
	case anyContains(names, lockMarker):
		r.Recipe = recipeMutex
		if err = in.queue(ctx, &r, in.path, names, mutexRoles, lockMarker); err == nil {
			asElection(&r)
		}
	default:
		r.Recipe = recipeUnknown
		err = in.queue(ctx, &r, in.path, names, mutexRoles)
	}
	return r, w.changed, err
}

// children lists path, setting a watch if asked: nil, nil if it does not
// exist (the watch then waits for its creation).
func (in *inspector) children(ctx context.Context, path string, watch bool, w *watcher) ([]string, error) {
	if !watch {
		names, _, err := in.client.Children(ctx, path)
		if errors.Is(err, zk.ErrNoNode) {
			return nil, nil
		}
		return nonNil(names), err
	}
	names, _, ch, err := in.client.ChildrenW(ctx, path)
	if errors.Is(err, zk.ErrNoNode) {
		ok, _, ech, err := in.client.ExistsW(ctx, path)
		if err != nil {
			return nil, err
		}
		w.add(ech)
		if ok { // created in between: look again at once
			w.add(closedEvent())
		}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	w.add(ch)
	return nonNil(names), nil
}

// semaphore fills r from <path>/leases and <path>/locks.
func (in *inspector) semaphore(ctx context.Context, r *Report, watch bool, w *watcher) error {
	r.Max, r.CountPath = in.maxLeases, in.countPath
	if in.countPath != "" {
		data, _, err := in.client.Get(ctx, in.countPath)
		if err != nil {
			return fmt.Errorf("count %s: %w", in.countPath, err)
		}
		n, err := sharedcount.Decode(data)
		if err != nil {
			return fmt.Errorf("count %s: %w", in.countPath, err)
		}
		r.Max = int(n)
	}
	leasesDir, locksDir := joinPath(in.path, "leases"), joinPath(in.path, "locks")
	leaseNames, err := in.children(ctx, leasesDir, watch, w)
	if err != nil {
		return err
	}
	holding := r.Max
	if holding == 0 {
		holding = len(leaseNames) // unknown maximum: every lease holds
	}
	if err := in.queue(ctx, r, leasesDir, leaseNames, semaphoreRoles(holding), leaseMarker); err != nil {
		return err
	}
	lockNames, err := in.children(ctx, locksDir, watch, w)
	if err != nil {
		return err
	}
	if err := in.queue(ctx, r, locksDir, lockNames, guardRoles, lockMarker); err != nil {
		return err
	}
	if r.Max == 0 {
		acquiringLease(r)
	}
	return nil
}

// queue reads the children names of dir, sorts them by the markers, judges
// each with role and adds them to r.
func (in *inspector) queue(ctx context.Context, r *Report, dir string, names []string, role roleFunc, markers ...string) error {
	sort.SliceStable(names, func(i, j int) bool { return sortKey(names[i], markers) < sortKey(names[j], markers) })
	var nodes []Node
	for _, name := range names {
		path := joinPath(dir, name)
		data, stat, err := in.client.Get(ctx, path)
		if errors.Is(err, zk.ErrNoNode) {
			continue // gone since the listing
		}
		if err != nil {
			return err
		}
		nodes = append(nodes, newNode(path, name, data, stat, markers))
	}
	for i := range nodes {
		switch nodes[i].Role = role(nodes, i); nodes[i].Role {
		case "holder", "leader":
			r.Holders = append(r.Holders, nodes[i])
		case "other":
			r.Others = append(r.Others, nodes[i])
		default:
			r.Waiters = append(r.Waiters, nodes[i])
		}
	}
	return nil
}

// Lease is the stamp of a time-bounded lease node (package leases).
type Lease struct {
	Mode     string `json:"mode"`     // session or ttl
	BoundMS  int64  `json:"bound_ms"` // the bound in milliseconds
	Renewed  string `json:"renewed"`  // the last renewal, RFC 3339, holder's clock; "" before the first
	Renewals int    `json:"renewals"` // how often it was renewed
	Holder   string `json:"holder"`   // the Lease value that wrote the stamp
}
