package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
)

// rmHelp is the longer help of `zkr rm`.
const rmHelp = `Deletes the node at PATH. A node with children is refused, nothing
deleted (status 1), unless --recursive (-R), which deletes every node below
it first, deepest first, then PATH, as zkCli.sh's deleteall does; nodes
created below it meanwhile are deleted too. --version N deletes only if the
node is at version N (not with --recursive). zkr refuses to delete / (with
--namespace, the namespace's root) and the server's own /zookeeper (status
2). A node that does not exist fails with status 1. --json prints {"path",
"deleted"}: how many nodes zkr deleted.`

// rmRetries bounds how often a recursive rm lists a node again whose
// children came back as it deleted them.
const rmRetries = 10

// errNotEmpty is a node with children that rm was not asked to delete
// recursively.
var errNotEmpty = errors.New("has children: give --recursive (-R) to delete it and every node below it")

// setupRm is `zkr rm [-R] PATH`.
func setupRm(fs *flag.FlagSet, conn *connFlags) runFunc {
	var recursive bool
	fs.BoolVar(&recursive, "recursive", false, "delete every node below PATH too")
	fs.BoolVar(&recursive, "R", false, "the same as --recursive")
	version := fs.Int("version", -1, "delete only if the node is at this `version` (-1: any)")
	asJSON := fs.Bool("json", false, `print {"path", "deleted"}`)
	return func(ctx context.Context, e *env, args, _ []string) error {
		if *version < -1 || *version > 1<<31-1 {
			return usagef("rm: --version takes -1 or a node version, not %d", *version)
		}
		if recursive && *version != -1 {
			return usagef("rm: --version is for one node, not with --recursive")
		}
		client, ctx, done, err := conn.connect(ctx, e, checkRemovable(args[0]))
		if err != nil {
			return err
		}
		defer done()
		n, err := remove(ctx, client, args[0], int32(*version), recursive)
		if err != nil && n > 0 {
			err = fmt.Errorf("%w (%d node(s) below it deleted)", err, n)
		}
		if err != nil {
			return interrupted(ctx, fmt.Errorf("rm %s: %w", args[0], err))
		}
		if *asJSON {
			return writeJSONLine(e.stdout, struct {
				Path    string `json:"path"`
				Deleted int    `json:"deleted"`
			}{args[0], n})
		}
		return nil
	}
}

// checkRemovable refuses, before any wait, a path rm must not delete: the
// root, and the server's own tree.
func checkRemovable(path string) func(*framework.Client) error {
	return func(client *framework.Client) error {
		sp, err := client.ServerPath(path)
		if err != nil {
			return err
		}
		if path == "/" || sp == "/" {
			return usagef("rm: refusing to delete / (with --namespace, the namespace's root): delete the nodes below it by name")
		}
		if sp == "/zookeeper" || strings.HasPrefix(sp, "/zookeeper/") {
			return usagef("rm: refusing to delete %s: /zookeeper is the server's own", sp)
		}
		return nil
	}
}

// remove deletes path, and with recursive every node below it first, and
// returns how many nodes it deleted.
func remove(ctx context.Context, client *framework.Client, path string, version int32, recursive bool) (int, error) {
	if !recursive {
		err := deleteNode(ctx, client, path, version)
		if errors.Is(err, zk.ErrNotEmpty) {
			return 0, errNotEmpty
		}
		if err != nil {
			return 0, err
		}
		return 1, nil
	}
	return removeTree(ctx, client, path, true)
}

// deleteNode deletes one node. A delete of any version whose answer was
// lost and whose retry found no node succeeded or was beaten to it: the
// node is gone either way.
func deleteNode(ctx context.Context, client *framework.Client, path string, version int32) error {
	err := client.Delete(ctx, path, version)
	if version == -1 && errors.Is(err, framework.ErrOutcomeUnknown) && errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	return err
}

// removeTree deletes the nodes below path, deepest first, then path, and
// returns how many it deleted. A node gone meanwhile counts as deleted by
// another, but for the top one, which must be there.
func removeTree(ctx context.Context, client *framework.Client, path string, top bool) (int, error) {
	deleted := 0
	for try := 0; ; try++ {
		children, _, err := client.Children(ctx, path)
		if errors.Is(err, zk.ErrNoNode) && !top {
			return deleted, nil
		}
		if err != nil {
			return deleted, err
		}
		for _, c := range children {
			n, err := removeTree(ctx, client, joinPath(path, c), false)
			deleted += n
			if err != nil {
				return deleted, err
			}
		}
		err = deleteNode(ctx, client, path, -1)
		switch {
		case err == nil:
			return deleted + 1, nil
		case errors.Is(err, zk.ErrNoNode) && !top:
			return deleted, nil
		case errors.Is(err, zk.ErrNotEmpty) && try < rmRetries:
			continue // a child came meanwhile
		}
		return deleted, err
	}
}
