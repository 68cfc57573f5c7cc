package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/zkrecipes/zkrecipes/recipes/cache"
)

// watchHelp is the longer help of `zkr watch`.
const watchHelp = `Keeps the node at PATH and its subtree in memory (recipes/cache, Curator's
CuratorCache) and prints each of its events as it happens, one line each:
first "created" for every node that exists, then "initialized", then
"created", "changed" and "deleted" as the tree changes, until SIGINT or
SIGTERM (status 0; the cache's watch is removed from the server). A line
is the event, the node's path and its data as inspect shows data (quoted
text, or hex, cut short; "-" when empty):

  created /app/config "v1"
  initialized
  changed /app/config "v2"
  deleted /app/config

A PATH that does not exist yet is watched all the same: its creation is
a "created". Writes that follow each other fast may come as one event
(a create and a change as one "created" with the last data), as with
Curator. A signal before the session is up exits 128+N, as any wait.

--depth N follows PATH and the nodes at most N levels below it (0: PATH
alone, as Curator's NodeCache; 1: its children too, as PathChildrenCache).
--no-data keeps no data, only each node's Stat: a change of the data is
still a "changed".

--json prints one object per line: {"type" (created, changed, deleted,
initialized), "path", "data" (the data when it is valid UTF-8) or
"data_b64" (else, base64), "version", "mzxid", and for changed
"old_version"}. A deleted node has its last version and mzxid and no
data; initialized has the type alone; --no-data leaves the data out.`

// setupWatch is `zkr watch PATH`.
func setupWatch(fs *flag.FlagSet, conn *connFlags) runFunc {
	asJSON := fs.Bool("json", false, "print one JSON object per event and line instead of text")
	depth := &depthFlag{n: -1}
	fs.Var(depth, "depth", "follow PATH and the nodes at most `N` levels below it (0: PATH alone; default: the whole subtree)")
	noData := fs.Bool("no-data", false, "keep and print no data, only versions")
	return func(ctx context.Context, e *env, args, _ []string) error {
		client, err := conn.newClient(e)
		if err != nil {
			return err
		}
		defer client.Close()
		if _, err := client.ServerPath(args[0]); err != nil {
			return err
		}
		var opts []cache.Option
		if depth.n >= 0 {
			opts = append(opts, cache.WithMaxDepth(depth.n))
		}
		if *noData {
			opts = append(opts, cache.WithoutData())
		}
		c, err := cache.New(client, args[0], opts...)
		if err != nil {
			return err
		}
		ctx, stop := cancelOnSignal(ctx, e)
		defer stop()
		if err := conn.waitConnected(ctx, e, client, -1); err != nil {
			return interrupted(ctx, err)
		}
		p := eventPrinter{w: e.stdout, json: *asJSON, noData: *noData}
		c.AddListener(p.print)
		return follow(ctx, c)
	}
}

// follow starts c and keeps it until zkr is interrupted (nil: status 0)
// or the cache stops with an error; then it closes c.
func follow(ctx context.Context, c *cache.Cache) error {
	defer closeCache(c)
	if err := c.Start(ctx); err != nil {
		return watchEnd(ctx, err)
	}
	select {
	case <-ctx.Done():
		return watchEnd(ctx, ctx.Err())
	case <-c.Done():
		return cacheStopped(ctx, c)
	}
}

// startCache starts c for as long as ctx lasts and waits for its first
// load.
func startCache(ctx context.Context, c *cache.Cache) error {
	if err := c.Start(ctx); err != nil {
		return err
	}
	return c.AwaitInitialized(ctx)
}

// cacheStopped is the end of zkr by a cache that stopped: as interrupted
// when ctx ended (the cache stops with it), else the cache's error.
func cacheStopped(ctx context.Context, c *cache.Cache) error {
	if ctx.Err() != nil {
		return watchEnd(ctx, ctx.Err())
	}
	return fmt.Errorf("cache of %s stopped: %w", c.Path(), c.Err())
}

// watchEnd is the end of a watch by err: none (status 0) when zkr was
// interrupted, else err.
func watchEnd(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), errInterrupted) {
		return nil // a watch ends with Ctrl-C
	}
	return err
}

// notifyChange returns a listener that sends on changed, without
// waiting, on each event of a node (Initialized aside).
func notifyChange(changed chan<- struct{}) cache.Listener {
	return func(ev cache.Event) {
		if ev.Type == cache.Initialized {
			return
		}
		select {
		case changed <- struct{}{}:
		default:
		}
	}
}

// cacheClose bounds the removal of a cache's watch at zkr's end.
const cacheClose = 10 * time.Second

// closeCache closes c, removing its watch from the server.
func closeCache(c *cache.Cache) {
	ctx, cancel := context.WithTimeout(context.Background(), cacheClose)
	defer cancel()
	_ = c.Close(ctx)
}

// depthFlag is --depth: a level count from 0; n is -1 when not given.
type depthFlag struct{ n int }

// Set parses a depth from 0.
func (d *depthFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("takes 0 or more levels, not %q", s)
	}
	d.n = n
	return nil
}

// String says the depth, "" when not given (no default in help).
func (d *depthFlag) String() string {
	if d == nil || d.n < 0 {
		return ""
	}
	return strconv.Itoa(d.n)
}

// WatchEvent is what `zkr watch --json` prints: one JSON object per
// event. Its shape is stable; fields may be added, none removed or
// renamed.
type WatchEvent struct {
	Type    string  `json:"type"`               // created, changed, deleted or initialized
	Path    string  `json:"path,omitempty"`     // the node's path, in the namespace
	Data    *string `json:"data,omitempty"`     // the data, when valid UTF-8 ("" when empty)
	DataB64 []byte  `json:"data_b64,omitempty"` // else the data, base64
	Version *int32  `json:"version,omitempty"`  // the data version (deleted: the last one)
	Mzxid   *int64  `json:"mzxid,omitempty"`    // the zxid of the last change (deleted: the last one)
	// OldVersion is the version before a change.
	OldVersion *int32 `json:"old_version,omitempty"`
}

// eventPrinter prints a cache's events, as text or JSON lines.
type eventPrinter struct {
	w      io.Writer
	json   bool
	noData bool
}

// print writes ev; it is a cache.Listener, called one event at a time.
func (p eventPrinter) print(ev cache.Event) {
	if p.json {
		_ = json.NewEncoder(p.w).Encode(p.record(ev))
		return
	}
	switch ev.Type {
	case cache.Initialized:
		fmt.Fprintln(p.w, ev.Type)
	case cache.Deleted:
		fmt.Fprintf(p.w, "%s %s\n", ev.Type, ev.Path)
	default:
		if p.noData {
			fmt.Fprintf(p.w, "%s %s\n", ev.Type, ev.Path)
		} else {
			fmt.Fprintf(p.w, "%s %s %s\n", ev.Type, ev.Path, briefData(ev.Entry.Data))
		}
	}
}

// record is ev for --json.
func (p eventPrinter) record(ev cache.Event) WatchEvent {
	r := WatchEvent{Type: ev.Type.String(), Path: ev.Path}
	entry := ev.Entry
	switch ev.Type {
	case cache.Initialized:
		return r
	case cache.Deleted:
		entry = ev.Old
	case cache.Changed:
		r.OldVersion = &ev.Old.Stat.Version
	}
	r.Version, r.Mzxid = &entry.Stat.Version, &entry.Stat.Mzxid
	if p.noData || ev.Type == cache.Deleted {
		return r
	}
	if utf8.Valid(entry.Data) {
		s := string(entry.Data)
		r.Data = &s
	} else {
		r.DataB64 = entry.Data
	}
	return r
}

// briefData is data as inspect's table shows it: quoted text, or hex, cut
// short; "-" when empty.
func briefData(data []byte) string {
	n := Node{DataHex: hex.EncodeToString(data)}
	if printable(data) {
		n.Data = string(data)
	}
	return shownData(n)
}
