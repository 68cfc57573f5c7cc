package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path"
	"sort"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
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
one such object per line on every change.

--watch keeps PATH's nodes in a cache (recipes/cache: one recursive watch
on ZooKeeper 3.6 and later) and shows them again after each change, the
changes of 100 ms at once; it reads only what changed (and the count node
of --count-path, on each look). SIGINT or SIGTERM ends it with status 0.`

// setupInspect is `zkr inspect PATH`.
func setupInspect(fs *flag.FlagSet, conn *connFlags) runFunc {
	asJSON := fs.Bool("json", false, "print one JSON object (see the README for its shape) instead of a table")
	watch := fs.Bool("watch", false, "keep a cache of PATH and show it again on every change, until interrupted")
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
	if !watch {
		r, err := in.look(ctx, serverReader{in.client})
		if err != nil {
			return interrupted(ctx, err)
		}
		return in.print(e, r, asJSON, false)
	}
	c, err := in.cache()
	if err != nil {
		return err
	}
	changed := make(chan struct{}, 1)
	c.AddListener(notifyChange(changed))
	defer closeCache(c)
	if err := startCache(ctx, c); err != nil {
		return watchEnd(ctx, err)
	}
	for {
		select {
		case <-changed: // shown by this look
		default:
		}
		r, err := in.look(ctx, cacheReader{c})
		if err != nil {
			return watchEnd(ctx, err)
		}
		if err := in.print(e, r, asJSON, true); err != nil {
			return err
		}
		// A change, then the others that follow it within redrawDelay:
		// one look for a burst of writes.
		for _, wait := range []<-chan struct{}{changed, afterDelay(ctx)} {
			select {
			case <-wait:
			case <-c.Done():
				return cacheStopped(ctx, c)
			case <-ctx.Done():
				return watchEnd(ctx, ctx.Err())
			}
		}
	}
}

// redrawDelay is how long inspect --watch gathers changes before it
// looks again.
const redrawDelay = 100 * time.Millisecond

// afterDelay returns a channel closed after redrawDelay, or when ctx ends.
func afterDelay(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{})
	// Ends after redrawDelay, or with ctx.
	go func() {
		t := time.NewTimer(redrawDelay)
		defer t.Stop()
		select {
		case <-t.C:
			close(ch)
		case <-ctx.Done():
		}
	}()
	return ch
}

// print writes r, as JSON or a table; under watch, each look on its own.
func (in *inspector) print(e *env, r Report, asJSON, watch bool) error {
	if asJSON {
		return printJSON(e.stdout, r, watch)
	}
	if watch && e.terminal {
		fmt.Fprint(e.stdout, "\x1b[H\x1b[2J")
	} else if watch {
		fmt.Fprintf(e.stdout, "--- %s\n", time.Now().Format(time.TimeOnly))
	}
	return printTable(e.stdout, r)
}

// cache returns a cache of what look reads under the path: its children
// and a semaphore's leases/ and locks/ children.
func (in *inspector) cache() (*cache.Cache, error) {
	leasesDir, locksDir := joinPath(in.path, "leases"), joinPath(in.path, "locks")
	return cache.New(in.client, in.path, cache.WithMaxDepth(2), cache.WithFilter(func(p string) bool {
		dir := path.Dir(p)
		return dir == in.path || dir == leasesDir || dir == locksDir
	}))
}

// inspector reads what a path holds.
type inspector struct {
	client    *framework.Client
	path      string
	countPath string
	maxLeases int
}

// reader reads nodes for look: the server's, or a cache's.
type reader interface {
	// children lists path: nil, nil when there is no node.
	children(ctx context.Context, path string) ([]string, error)
	// get reads the node at path: zk.ErrNoNode when there is none.
	get(ctx context.Context, path string) ([]byte, *zk.Stat, error)
}

// serverReader reads from the server.
type serverReader struct{ client *framework.Client }

func (s serverReader) children(ctx context.Context, path string) ([]string, error) {
	names, _, err := s.client.Children(ctx, path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	return nonNil(names), err
}

func (s serverReader) get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	return s.client.Get(ctx, path)
}

// cacheReader reads a cache, and never the server.
type cacheReader struct{ c *cache.Cache }

func (r cacheReader) children(_ context.Context, path string) ([]string, error) {
	names, ok := r.c.Children(path)
	if !ok {
		return nil, nil
	}
	return nonNil(names), nil
}

func (r cacheReader) get(_ context.Context, path string) ([]byte, *zk.Stat, error) {
	e, ok := r.c.Get(path)
	if !ok {
		return nil, nil, zk.ErrNoNode
	}
	return e.Data, &e.Stat, nil
}

// look reads the path once, through src.
func (in *inspector) look(ctx context.Context, src reader) (Report, error) {
	r := Report{Path: in.path, Holders: []Node{}, Waiters: []Node{}, Others: []Node{}}
	names, err := src.children(ctx, in.path)
	if err != nil {
		return r, err
	}
	switch {
	case names == nil:
		r.Recipe = recipeNone
	case len(names) == 0:
		r.Recipe = recipeEmpty
	case contains(names, "leases") || contains(names, "locks"):
		r.Recipe = recipeSemaphore
		err = in.semaphore(ctx, src, &r)
	case anyContains(names, readMarker, writeMarker):
		r.Recipe = recipeRWLock
		err = in.queue(ctx, src, &r, in.path, names, rwRoles, readMarker, writeMarker)
	case anyContains(names, latchMarker):
		r.Recipe = recipeLatch
		err = in.queue(ctx, src, &r, in.path, names, latchRoles, latchMarker)
	case anyContains(names, lockMarker):
		r.Recipe = recipeMutex
		if err = in.queue(ctx, src, &r, in.path, names, mutexRoles, lockMarker); err == nil {
			asElection(&r)
		}
	default:
		r.Recipe = recipeUnknown
		err = in.queue(ctx, src, &r, in.path, names, mutexRoles)
	}
	return r, err
}

// semaphore fills r from <path>/leases and <path>/locks; the count node,
// if any, is read from the server.
func (in *inspector) semaphore(ctx context.Context, src reader, r *Report) error {
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
	leaseNames, err := src.children(ctx, leasesDir)
	if err != nil {
		return err
	}
	holding := r.Max
	if holding == 0 {
		holding = len(leaseNames) // unknown maximum: every lease holds
	}
	if err := in.queue(ctx, src, r, leasesDir, leaseNames, semaphoreRoles(holding), leaseMarker); err != nil {
		return err
	}
	lockNames, err := src.children(ctx, locksDir)
	if err != nil {
		return err
	}
	if err := in.queue(ctx, src, r, locksDir, lockNames, guardRoles, lockMarker); err != nil {
		return err
	}
	if r.Max == 0 {
		acquiringLease(r)
	}
	return nil
}

// queue reads the children names of dir, sorts them by the markers, judges
// each with role and adds them to r.
func (in *inspector) queue(ctx context.Context, src reader, r *Report, dir string, names []string, role roleFunc, markers ...string) error {
	sort.SliceStable(names, func(i, j int) bool { return sortKey(names[i], markers) < sortKey(names[j], markers) })
	var nodes []Node
	for _, name := range names {
		path := joinPath(dir, name)
		data, stat, err := src.get(ctx, path)
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
