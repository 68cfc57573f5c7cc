package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

// queueNode is one item node as ls shows it.
type queueNode struct {
	Node        string   `json:"node"`
	Items       []string `json:"items,omitempty"`
	ItemsBase64 [][]byte `json:"items_base64,omitempty"`
	Locked      bool     `json:"locked"`
	Malformed   string   `json:"malformed,omitempty"`
}

// queueListing is what ls --json prints.
type queueListing struct {
	Path  string      `json:"path"`
	Nodes []queueNode `json:"nodes"`
}

// list prints the queue's item nodes in the order its consumers take
// them, with their items. A missing queue is an empty one.
func (f *queueFlags) list(ctx context.Context, e *env, client *framework.Client, what, dir string) error {
	names, err := children(ctx, client, dir)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	locked := map[string]bool{}
	if f.lockPath != "" {
		locks, err := children(ctx, client, f.lockPath)
		if err != nil {
			return fmt.Errorf("%s: lock path: %w", what, err)
		}
		for _, l := range locks {
			locked[l] = true
		}
	}
	out := queueListing{Path: dir, Nodes: []queueNode{}}
	for _, name := range f.itemNodes(names) {
		data, _, err := client.Get(ctx, path.Join(dir, name))
		if errors.Is(err, zk.ErrNoNode) {
			continue // taken meanwhile
		}
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		out.Nodes = append(out.Nodes, f.node(name, data, locked[name]))
	}
	return f.printListing(e, out)
}

// children lists dir; a missing dir has none.
func children(ctx context.Context, client *framework.Client, dir string) ([]string, error) {
	names, _, err := client.Children(ctx, dir)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	return names, err
}

// itemNodes returns the item nodes among names, in the order a consumer
// of the kind takes them: by name (a priority's or a time's digits, then
// the sequence), or by sequence alone for an id queue. Other nodes are
// passed over, as consumers pass over them.
func (f *queueFlags) itemNodes(names []string) []string {
	prefix := "queue-"
	if f.kind == "simple" {
		prefix = "qn-"
	}
	items := slices.DeleteFunc(names, func(n string) bool { return !strings.HasPrefix(n, prefix) })
	if f.kind != "id" {
		slices.Sort(items)
		return items
	}
	seq := func(n string) string { return n[max(0, len(n)-10):] }
	slices.SortStableFunc(items, func(a, b string) int { return strings.Compare(seq(a), seq(b)) })
	return items
}

// node reads one item node's data: a simple queue's bytes as they are,
// the others' in Curator's format.
func (f *queueFlags) node(name string, data []byte, locked bool) queueNode {
	n := queueNode{Node: name, Locked: locked}
	items := [][]byte{data}
	if f.kind != "simple" {
		var err error
		if items, err = queue.Decode(data); err != nil {
			n.Malformed = err.Error()
			return n
		}
	}
	text := true
	for _, it := range items {
		text = text && utf8.Valid(it)
	}
	if !text {
		n.ItemsBase64 = items
		return n
	}
	n.Items = make([]string, len(items))
	for i, it := range items {
		n.Items[i] = string(it)
	}
	return n
}

// printListing prints the listing: one JSON object, or a line per node
// with its items quoted.
func (f *queueFlags) printListing(e *env, out queueListing) error {
	if f.json {
		b, err := json.Marshal(out)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s\n", b)
		return nil
	}
	for _, n := range out.Nodes {
		line := []string{n.Node}
		for _, it := range n.Items {
			line = append(line, strconv.Quote(it))
		}
		for _, it := range n.ItemsBase64 {
			line = append(line, strconv.Quote(string(it)))
		}
		if n.Malformed != "" {
			line = append(line, "malformed: "+n.Malformed)
		}
		if n.Locked {
			line = append(line, "(locked)")
		}
		fmt.Fprintln(e.stdout, strings.Join(line, " "))
	}
	return nil
}
