package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
)

// The longer help of the commands that read plain nodes.
const (
	getHelp = `Prints the data of the node at PATH, then a newline, as etcdctl get
--print-value-only does. --json prints one object: {"path", "data" (when
it is UTF-8; else "data_b64", base64), "stat"}. A node that does not exist
fails with status 1.`
	statHelp = `Prints the stat of the node at PATH, one field a line, as zkCli.sh's stat
does (times in RFC 3339, UTC). --json prints {"path", "stat"}, the stat's
fields in snake case.`
	lsHelp = `Lists the children of the node at PATH, one name a line, sorted. -R
(--recursive) lists PATH and every node below it instead, one full path a
line, depth first, as zkCli.sh's ls -R does; a node deleted while zkr
reads is left out. --json prints {"path", "children"}, with -R {"path",
"nodes"}.`
)

// checkPath returns a check for connFlags.connect that PATH is a path.
func checkPath(path string) func(*framework.Client) error {
	return func(client *framework.Client) error {
		_, err := client.ServerPath(path)
		return err
	}
}

// setupGet is `zkr get PATH`.
func setupGet(fs *flag.FlagSet, conn *connFlags) runFunc {
	asJSON := fs.Bool("json", false, `print {"path", "data" or "data_b64", "stat"}`)
	return func(ctx context.Context, e *env, args, _ []string) error {
		client, ctx, done, err := conn.connect(ctx, e, checkPath(args[0]))
		if err != nil {
			return err
		}
		defer done()
		data, stat, err := client.Get(ctx, args[0])
		if err != nil {
			return interrupted(ctx, fmt.Errorf("get %s: %w", args[0], err))
		}
		if *asJSON {
			return writeJSONLine(e.stdout, struct {
				Path string `json:"path"`
				dataJSON
				Stat *statJSON `json:"stat"`
			}{args[0], newDataJSON(data), newStatJSON(stat)})
		}
		_, err = fmt.Fprintf(e.stdout, "%s\n", data)
		return err
	}
}

// setupStat is `zkr stat PATH`.
func setupStat(fs *flag.FlagSet, conn *connFlags) runFunc {
	asJSON := fs.Bool("json", false, `print {"path", "stat"}`)
	return func(ctx context.Context, e *env, args, _ []string) error {
		client, ctx, done, err := conn.connect(ctx, e, checkPath(args[0]))
		if err != nil {
			return err
		}
		defer done()
		ok, stat, err := client.Exists(ctx, args[0])
		if err == nil && !ok {
			err = zk.ErrNoNode
		}
		if err != nil {
			return interrupted(ctx, fmt.Errorf("stat %s: %w", args[0], err))
		}
		if *asJSON {
			return writeJSONLine(e.stdout, struct {
				Path string    `json:"path"`
				Stat *statJSON `json:"stat"`
			}{args[0], newStatJSON(stat)})
		}
		return printStat(e.stdout, stat)
	}
}

// setupLs is `zkr ls [-R] PATH`.
func setupLs(fs *flag.FlagSet, conn *connFlags) runFunc {
	var recursive bool
	fs.BoolVar(&recursive, "R", false, "list PATH and every node below it, full paths")
	fs.BoolVar(&recursive, "recursive", false, "the same as -R")
	asJSON := fs.Bool("json", false, `print {"path", "children"} (-R: {"path", "nodes"})`)
	return func(ctx context.Context, e *env, args, _ []string) error {
		client, ctx, done, err := conn.connect(ctx, e, checkPath(args[0]))
		if err != nil {
			return err
		}
		defer done()
		var names []string
		if recursive {
			names, err = subtree(ctx, client, args[0])
		} else if names, _, err = client.Children(ctx, args[0]); err == nil {
			slices.Sort(names)
		}
		if err != nil {
			return interrupted(ctx, fmt.Errorf("ls %s: %w", args[0], err))
		}
		switch {
		case *asJSON && recursive:
			return writeJSONLine(e.stdout, struct {
				Path  string   `json:"path"`
				Nodes []string `json:"nodes"`
			}{args[0], names})
		case *asJSON:
			return writeJSONLine(e.stdout, struct {
				Path     string   `json:"path"`
				Children []string `json:"children"`
			}{args[0], nonNil(names)})
		}
		for _, n := range names {
			fmt.Fprintln(e.stdout, n)
		}
		return nil
	}
}

// subtree returns root and the paths of every node below it, depth first,
// children in name order. A node other than root that is deleted
// meanwhile is left out, with what was below it.
func subtree(ctx context.Context, client *framework.Client, root string) ([]string, error) {
	var out []string
	stack := []string{root}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		children, _, err := client.Children(ctx, p)
		if errors.Is(err, zk.ErrNoNode) && p != root {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, p)
		slices.Sort(children)
		for i := len(children) - 1; i >= 0; i-- {
			stack = append(stack, joinPath(p, children[i]))
		}
	}
	return out, nil
}
