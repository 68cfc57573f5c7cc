package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
)

// The longer help of the commands that write plain nodes.
const (
	setHelp = `Writes DATA into the node at PATH, or, without DATA, what zkr reads from
stdin (all of it, bytes as they are). --version N writes only if the node
is at version N (ZooKeeper's conditional setData), else fails with status
1 and writes nothing. A node that does not exist fails with status 1 (zkr
create makes one). A set whose answer was lost in a connection failure
ran once or not at all: zkr says so (status 1). --json prints {"path",
"stat"}.`
	createHelp = `Creates the node at PATH with DATA (default none) and prints its path.
The node is persistent; --sequential appends the server's sequence number
to its name (PATH may end in / to leave the name to the number), --ttl D
makes it a TTL node the server deletes once it has had no children and no
change for D (the server needs extendedTypesEnabled=true), --container a
container node, which the server deletes once its last child is gone.
There are no ephemeral nodes: the node would go with zkr's session as
zkr exits. --parents creates missing parents, as containers (Curator's
creatingParentContainersIfNeeded); without it a missing parent fails with
status 1, as does a node that exists. --json prints {"path"}.

A create whose answer was lost in a connection failure is sent again: it
may then fail as a node that exists (the first one made it), and with
--sequential it may leave a second node. Read before trying again.`
)

// setupSet is `zkr set PATH [DATA]`.
func setupSet(fs *flag.FlagSet, conn *connFlags) runFunc {
	version := fs.Int("version", -1, "write only if the node is at this `version` (-1: any)")
	asJSON := fs.Bool("json", false, `print {"path", "stat"}`)
	return func(ctx context.Context, e *env, args, _ []string) error {
		if *version < -1 || *version > 1<<31-1 {
			return usagef("set: --version takes -1 or a node version, not %d", *version)
		}
		data, err := dataArg(e, args)
		if err != nil {
			return err
		}
		client, ctx, done, err := conn.connect(ctx, e, checkPath(args[0]))
		if err != nil {
			return err
		}
		defer done()
		stat, err := client.Set(ctx, args[0], data, int32(*version))
		if err != nil {
			return interrupted(ctx, fmt.Errorf("set %s: %w", args[0], err))
		}
		if *asJSON {
			return writeJSONLine(e.stdout, struct {
				Path string    `json:"path"`
				Stat *statJSON `json:"stat"`
			}{args[0], newStatJSON(stat)})
		}
		return nil
	}
}

// dataArg returns DATA, the argument after PATH, or stdin without one.
func dataArg(e *env, args []string) ([]byte, error) {
	if len(args) > 1 {
		return []byte(args[1]), nil
	}
	data, err := io.ReadAll(io.LimitReader(e.stdin, framework.MaxRequestSize+1))
	if err != nil {
		return nil, fmt.Errorf("read stdin: %w", err)
	}
	if len(data) > framework.MaxRequestSize {
		return nil, usagef("the data on stdin is over %d bytes, more than ZooKeeper takes", framework.MaxRequestSize)
	}
	return data, nil
}

// createFlags are the flags of `zkr create`.
type createFlags struct {
	sequential, container, parents, json bool
	ttl                                  time.Duration
}

// mode returns the create mode the flags ask for.
func (f *createFlags) mode() (framework.CreateMode, []framework.CreateOption, error) {
	var opts []framework.CreateOption
	if f.parents {
		opts = append(opts, framework.WithParents())
	}
	switch {
	case f.ttl < 0:
		return 0, nil, usagef("create: --ttl must be positive")
	case f.container && (f.sequential || f.ttl > 0):
		return 0, nil, usagef("create: a --container node is neither --sequential nor --ttl")
	case f.container:
		return framework.Container, opts, nil
	case f.ttl > 0 && f.sequential:
		return framework.PersistentSequentialTTL, append(opts, framework.WithTTL(f.ttl)), nil
	case f.ttl > 0:
		return framework.PersistentTTL, append(opts, framework.WithTTL(f.ttl)), nil
	case f.sequential:
		return framework.PersistentSequential, opts, nil
	}
	return framework.Persistent, opts, nil
}

// setupCreate is `zkr create PATH [DATA]`.
func setupCreate(fs *flag.FlagSet, conn *connFlags) runFunc {
	var f createFlags
	fs.BoolVar(&f.sequential, "sequential", false, "append the server's sequence number to the name")
	fs.BoolVar(&f.container, "container", false, "a container node, deleted by the server once its last child is gone")
	fs.DurationVar(&f.ttl, "ttl", 0, "a TTL node, deleted by the server after this `duration` without children or change")
	fs.BoolVar(&f.parents, "parents", false, "create missing parents (as containers)")
	fs.BoolVar(&f.json, "json", false, `print {"path"}`)
	return func(ctx context.Context, e *env, args, _ []string) error {
		mode, opts, err := f.mode()
		if err != nil {
			return err
		}
		var data []byte
		if len(args) > 1 {
			data = []byte(args[1])
		}
		path := args[0]
		if mode.IsSequential() && len(path) > 1 {
			path = strings.TrimSuffix(path, "/") // the name left to the number
		}
		client, ctx, done, err := conn.connect(ctx, e, checkPath(path))
		if err != nil {
			return err
		}
		defer done()
		created, err := client.Create(ctx, args[0], data, mode, opts...)
		if err != nil {
			return interrupted(ctx, fmt.Errorf("create %s: %w%s", args[0], err, ttlHint(mode, err)))
		}
		if f.json {
			return writeJSONLine(e.stdout, struct {
				Path string `json:"path"`
			}{created})
		}
		_, err = fmt.Fprintln(e.stdout, created)
		return err
	}
}

// ttlHint says why a server may have refused a TTL node: go-zookeeper
// names the server's answer, UNIMPLEMENTED, no better than "unknown error:
// -6".
func ttlHint(mode framework.CreateMode, err error) string {
	if mode != framework.PersistentTTL && mode != framework.PersistentSequentialTTL {
		return ""
	}
	for _, known := range []error{zk.ErrNodeExists, zk.ErrNoNode, zk.ErrNoAuth, framework.ErrOutcomeUnknown,
		context.Canceled, context.DeadlineExceeded, framework.ErrClosed, framework.ErrUnreachable, framework.ErrNotConnected} {
		if errors.Is(err, known) {
			return ""
		}
	}
	return " (the server refuses TTL nodes unless it runs with extendedTypesEnabled=true)"
}
