package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// core is what every kind of queue shares: the client, the paths, the
// producer and the rules of its kind. The typed queues wrap it.
type core struct {
	client *framework.Client
	path   string
	kind   kind
	opts   options
	what   string // "queue /jobs", for errors
	prod   *producer
}

// newCore validates a queue's arguments; it does no I/O.
func newCore(client *framework.Client, path string, k kind, opts []Option) (*core, error) {
	if err := recipe.CheckPath(client, path, ErrInvalidArgument); err != nil {
		return nil, fmt.Errorf("queue %s: %w", path, err)
	}
	o, err := recipe.Options(opts, ErrInvalidArgument)
	if err == nil {
		err = o.parts.Refuse(queuePart, ErrInvalidArgument)
	}
	if err != nil {
		return nil, fmt.Errorf("queue %s: %w", path, err)
	}
	if o.lockPath == path || (o.lockPath != "" && (isUnder(o.lockPath, path) || isUnder(path, o.lockPath))) {
		return nil, fmt.Errorf("queue %s: %w: lock path %s must be apart from the queue's", path, ErrInvalidArgument, o.lockPath)
	}
	c := &core{client: client, path: path, kind: k, opts: o, what: k.String() + " " + path}
	c.prod = newProducer(c)
	return c, nil
}

// isUnder reports whether p lies below dir.
func isUnder(p, dir string) bool {
	return len(p) > len(dir) && p[:len(dir)] == dir && p[len(dir)] == '/'
}

// log returns the queue's logger: WithLogger's, or the client's.
func (c *core) log() *slog.Logger { return recipe.Logger(c.opts.logger, c.client, "queue") }

// itemPath returns the path of the item node named name.
func (c *core) itemPath(name string) string { return zkpath.Join(c.path, name) }

// lockOf returns the path of the lock node of the item named name: the
// item's own name under the lock path, as Curator names it.
func (c *core) lockOf(name string) string { return zkpath.Join(c.opts.lockPath, name) }

// ensureDirs creates the queue's directory and its lock path, persistent
// with container parents, as Curator's start does. A directory there
// already is no error.
func (c *core) ensureDirs(ctx context.Context) error {
	for _, dir := range []string{c.path, c.opts.lockPath} {
		if dir == "" {
			continue
		}
		_, err := c.client.Create(ctx, dir, nil, framework.Persistent, framework.WithParents())
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("%s: create %s: %w", c.what, dir, err)
		}
	}
	return nil
}

// checkFits rejects a node of data under name that cannot go in one
// request: the value does not fit, and nothing is sent.
func (c *core) checkFits(name string, data []byte) error {
	if n := len(c.path) + 1 + len(name) + len(data); n > framework.MaxRequestSize {
		return fmt.Errorf("%s: %w: a node of %d bytes is over the server's limit of %d", c.what, ErrInvalidArgument, n, framework.MaxRequestSize)
	}
	return nil
}

// encode returns the data of a node that holds items, encoded by codec.
func encode[T any](c *core, codec Codec[T], items []T) ([]byte, error) {
	raw := make([][]byte, len(items))
	for i, it := range items {
		b, err := codec.Encode(it)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: encode item %d: %w", c.what, ErrInvalidArgument, i, err)
		}
		raw[i] = b
	}
	return Encode(raw), nil
}

// decode returns the items of a node's data; ErrMalformed when the data
// or an item cannot be read.
func decode[T any](codec Codec[T], data []byte) ([]T, error) {
	raw, err := Decode(data)
	if err != nil {
		return nil, err
	}
	items := make([]T, len(raw))
	for i, b := range raw {
		if items[i], err = codec.Decode(b); err != nil {
			return nil, fmt.Errorf("%w: item %d: %w", ErrMalformed, i, err)
		}
	}
	return items, nil
}
