package cache

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"log/slog"

	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Option configures a Cache.
type Option func(*options) error

type options struct {
	maxDepth   int // -1: no limit
	noData     bool
	compressed bool
	filter     func(path string) bool
	logger     *slog.Logger // nil: the client's
}

// WithMaxDepth caches the root and the nodes at most depth levels below
// it: 0 is the root alone (Curator's NodeCache), 1 the root and its
// children (PathChildrenCache, with ForChildren for its events). A
// negative depth is rejected with ErrInvalidArgument. Default: the whole
// subtree (TreeCache, CuratorCache).
func WithMaxDepth(depth int) Option {
	return func(o *options) error {
		if depth < 0 {
			return fmt.Errorf("%w: negative depth %d", ErrInvalidArgument, depth)
		}
		o.maxDepth = depth
		return nil
	}
}

// WithoutData keeps each node's Stat but not its data, as Curator's
// caches do when told not to cache data: Entry.Data is nil, and a change
// of the data is still a Changed event. Default: data kept.
func WithoutData() Option {
	return func(o *options) error {
		o.noData = true
		return nil
	}
}

// WithCompressedData reads each node's data as gzip, as Curator writes
// it with compression on (its GzipCompressionProvider), and keeps it
// uncompressed; data that is not gzip is kept as it is, and logged.
// Default: data kept as the server has it.
func WithCompressedData() Option {
	return func(o *options) error {
		o.compressed = true
		return nil
	}
}

// WithFilter leaves out of the cache each node for which keep returns
// false, with its subtree: the cache never reads below it. The root is
// always kept. A nil filter is rejected with ErrInvalidArgument.
// Default: every node.
func WithFilter(keep func(path string) bool) Option {
	return func(o *options) error {
		if keep == nil {
			return fmt.Errorf("%w: nil filter", ErrInvalidArgument)
		}
		o.filter = keep
		return nil
	}
}

// WithLogger sets the logger of the cache's own messages (reads that
// failed and are tried again, data that is not gzip). A nil logger is
// rejected with ErrInvalidArgument. Default: the client's logger, with
// the component zkrecipes/cache (framework.Hooks.Logger).
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error { return recipe.SetLogger(&o.logger, l, ErrInvalidArgument) }
}

// log returns the cache's logger: WithLogger's, or the client's.
func (c *Cache) log() *slog.Logger {
	return recipe.Logger(c.opts.logger, c.client, "cache")
}

// keeps tells whether p belongs in the cache by depth and filter.
func (c *Cache) keeps(p string) bool {
	if !within(c.path, p) {
		return false
	}
	if p == c.path {
		return true
	}
	if c.opts.maxDepth >= 0 && depth(c.path, p) > c.opts.maxDepth {
		return false
	}
	return c.opts.filter == nil || c.opts.filter(p)
}

// lists tells whether the children of p belong in the cache by depth.
func (c *Cache) lists(p string) bool {
	return c.opts.maxDepth < 0 || depth(c.path, p) < c.opts.maxDepth
}

// stored is the data the cache keeps of what the server has.
func (c *Cache) stored(p string, data []byte) []byte {
	if c.opts.noData || data == nil {
		return nil
	}
	if c.opts.compressed {
		r, err := gzip.NewReader(bytes.NewReader(data))
		if err == nil {
			var plain []byte
			if plain, err = io.ReadAll(r); err == nil {
				return plain
			}
		}
		c.log().Warn("node data is not gzip; kept as it is", "path", p, "err", err)
	}
	return bytes.Clone(data) // never a window on a reply's buffer
}
