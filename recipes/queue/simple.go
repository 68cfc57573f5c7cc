package queue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Simple is Curator's SimpleDistributedQueue, itself the queue of
// ZooKeeper's own recipes: each item is one node "qn-<sequence>" holding the
// item's bytes as they are, taken in sequence order. Takers list the
// directory with a watch and delete the first item they can: at most once.
// A taker keeps the rest of its listing for its next takes (as Kazoo's
// queue does), so a backlog costs a read and a delete per item and one
// listing, where Curator's taker lists for every item.
// Its directory is a container, as Curator makes it. It is safe for
// concurrent use.
type Simple struct {
	client *framework.Client
	path   string
	opts   options
	what   string

	mu sync.Mutex // guards kept and gen
	// kept holds the items of a listing after the one a take took, in
	// order, for the takes to come, so that a backlog is listed once
	// rather than for every item: an item put since comes after them all,
	// as its sequence is higher. gen counts the listings kept.
	kept []string
	gen  uint64
}

// NewSimple returns the simple queue whose items live under path. Of the
// options only WithLogger applies; WithLockPath and WithMaxItems are
// ErrInvalidArgument. It validates and does no I/O.
func NewSimple(client *framework.Client, path string, opts ...Option) (*Simple, error) {
	if err := recipe.CheckPath(client, path, ErrInvalidArgument); err != nil {
		return nil, fmt.Errorf("simple queue %s: %w", path, err)
	}
	o, err := recipe.Options(opts, ErrInvalidArgument)
	if err == nil {
		err = o.parts.Refuse(queuePart, ErrInvalidArgument)
	}
	if err != nil {
		return nil, fmt.Errorf("simple queue %s: %w", path, err)
	}
	if o.lockPath != "" || o.maxItems != 0 {
		return nil, fmt.Errorf("simple queue %s: %w: a simple queue takes no lock path and no maximum", path, ErrInvalidArgument)
	}
	return &Simple{client: client, path: path, opts: o, what: "simple queue " + path}, nil
}

// Path returns the queue's directory, as given to NewSimple.
func (s *Simple) Path() string { return s.path }

// Offer adds data at the end of the queue (Curator's offer). It is one
// create, sent in a transaction so that it is never repeated: a create
// whose answer was lost fails with ErrOutcomeUnknown rather than risk a
// second item. Data too large for one request is ErrInvalidArgument.
func (s *Simple) Offer(ctx context.Context, data []byte) error {
	if n := len(s.path) + 1 + len(simplePrefix) + len(data); n > framework.MaxRequestSize {
		return fmt.Errorf("%s: offer: %w: a node of %d bytes is over the server's limit", s.what, ErrInvalidArgument, n)
	}
	op := framework.CreateOp(zkpath.Join(s.path, simplePrefix), data, framework.PersistentSequential)
	_, err := s.client.Multi(ctx, op)
	// The directory EnsurePath found may still be reaped before the create
	// arrives (an empty container that had items): then it looks again.
	var opErr *framework.MultiOpError
	for try := 0; errors.As(err, &opErr) && errors.Is(opErr.Err, zk.ErrNoNode) && try < maxDirRepairs; try++ {
		if err := s.client.EnsurePath(ctx, s.path); err != nil {
			return fmt.Errorf("%s: offer: %w", s.what, err)
		}
		_, err = s.client.Multi(ctx, op)
	}
	if err != nil {
		return fmt.Errorf("%s: offer: %w", s.what, err)
	}
	return nil
}

// maxDirRepairs bounds the offers that find the queue's directory missing,
// in case something keeps deleting it.
const maxDirRepairs = 5

// Take removes the item at the head of the queue and returns it, waiting
// until there is one or ctx ends (Curator's take). A take whose ctx ends
// while its delete is on its way waits for the delete's answer (a few
// seconds at most) and returns the item it took, rather than drop it.
func (s *Simple) Take(ctx context.Context) ([]byte, error) {
	data, _, err := s.poll(ctx, true)
	return data, err
}

// Poll removes the item at the head of the queue and returns it, waiting
// at most wait for one; ErrEmpty when none came (Curator's poll, with and
// without its timeout, and remove). A zero wait looks once. A wait that
// ran out before the server could be reached is ErrUnreachable: nobody saw
// the queue empty. As in Take, a delete on its way when the wait or ctx
// ends is seen through, and the item returned.
func (s *Simple) Poll(ctx context.Context, wait time.Duration) ([]byte, error) {
	if wait < 0 {
		return nil, fmt.Errorf("%s: poll: %w: wait %v", s.what, ErrInvalidArgument, wait)
	}
	if wait == 0 {
		data, _, err := s.poll(ctx, false)
		return data, err
	}
	tctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	data, seen, err := s.poll(tctx, true)
	switch {
	case err == nil || ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded):
		return data, err
	case seen:
		return nil, fmt.Errorf("%s: poll: %w", s.what, ErrEmpty)
	}
	return nil, fmt.Errorf("%s: poll: %w: %w", s.what, ErrUnreachable, err)
}

// Peek returns the item at the head of the queue without removing it;
// ErrEmpty when there is none (Curator's peek and element).
func (s *Simple) Peek(ctx context.Context) ([]byte, error) {
	names, _, err := s.client.Children(ctx, s.path)
	if recipe.IsNoNode(err) {
		return nil, fmt.Errorf("%s: peek: %w", s.what, ErrEmpty)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: peek: %w", s.what, err)
	}
	for _, name := range s.items(names) {
		data, _, err := s.client.Get(ctx, zkpath.Join(s.path, name))
		if recipe.IsNoNode(err) {
			continue // taken meanwhile: the next
		}
		if err != nil {
			return nil, fmt.Errorf("%s: peek: %w", s.what, err)
		}
		return data, nil
	}
	return nil, fmt.Errorf("%s: peek: %w", s.what, ErrEmpty)
}

// items returns the queue's items in a listing, in order.
func (s *Simple) items(names []string) []string {
	items := slices.DeleteFunc(names, func(n string) bool { return !strings.HasPrefix(n, simplePrefix) })
	slices.Sort(items)
	return items
}

// poll takes the first item it can; block waits for one on the
// directory's watch until ctx ends, else it is ErrEmpty. seen tells
// whether a listing was read. The items kept from an earlier listing go
// first, without a listing of their own.
func (s *Simple) poll(ctx context.Context, block bool) (data []byte, seen bool, _ error) {
	if data, took, err := s.takeKept(ctx); took || err != nil {
		return data, false, err
	}
	for {
		var names []string
		var changed <-chan zk.Event
		var err error
		if block {
			names, _, changed, err = s.client.ChildrenW(ctx, s.path)
		} else {
			names, _, err = s.client.Children(ctx, s.path)
		}
		switch {
		case recipe.IsNoNode(err) && block:
			if err := s.client.EnsurePath(ctx, s.path); err != nil {
				return nil, seen, fmt.Errorf("%s: take: %w", s.what, err)
			}
			continue
		case recipe.IsNoNode(err):
			return nil, seen, fmt.Errorf("%s: poll: %w", s.what, ErrEmpty)
		case err != nil:
			return nil, seen, fmt.Errorf("%s: take: %w", s.what, err)
		}
		seen = true
		data, took, err := s.takeFirst(ctx, s.items(names))
		if took || err != nil {
			return data, seen, err
		}
		if !block {
			return nil, seen, fmt.Errorf("%s: poll: %w", s.what, ErrEmpty)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, seen, fmt.Errorf("%s: take: %w", s.what, ctx.Err())
		}
	}
}

// takeFirst reads and deletes the first of items still there, and keeps
// the items after it for the takes to come.
func (s *Simple) takeFirst(ctx context.Context, items []string) ([]byte, bool, error) {
	for i, name := range items {
		data, gone, err := s.takeItem(ctx, name)
		switch {
		case err != nil:
			return nil, false, err
		case gone:
			continue
		}
		s.mu.Lock()
		s.kept, s.gen = items[i+1:], s.gen+1
		s.mu.Unlock()
		return data, true, nil
	}
	return nil, false, nil
}

// takeKept takes the first item kept from an earlier listing. An item
// gone drops what is kept (other takers take from it: a new listing costs
// no more than a read of each item they took), and so does a failure, so
// that the item not taken is not passed over; unless another take has
// kept a listing since.
func (s *Simple) takeKept(ctx context.Context) ([]byte, bool, error) {
	s.mu.Lock()
	if len(s.kept) == 0 {
		s.mu.Unlock()
		return nil, false, nil
	}
	name, gen := s.kept[0], s.gen
	s.kept = s.kept[1:]
	s.mu.Unlock()
	data, gone, err := s.takeItem(ctx, name)
	if err == nil && !gone {
		return data, true, nil
	}
	s.mu.Lock()
	if s.gen == gen {
		s.kept = nil
	}
	s.mu.Unlock()
	return nil, false, err
}

// takeItem reads and deletes one item; gone when another taker has it. A
// delete whose answer was lost cannot tell this taker's delete from
// another's: it is ErrOutcomeUnknown, and the item is not handed out.
// So a delete is sent only while ctx lasts, and then waits for its answer
// even if ctx ends meanwhile (recipe.FinishContext): abandoned on its way,
// it would take the item out of the queue and hand it to no one.
func (s *Simple) takeItem(ctx context.Context, name string) (data []byte, gone bool, _ error) {
	p := zkpath.Join(s.path, name)
	data, stat, err := s.client.Get(ctx, p)
	if recipe.IsNoNode(err) {
		return nil, true, nil
	}
	if err == nil {
		err = ctx.Err() // ended as the read answered: the item stays
	}
	if err != nil {
		return nil, false, fmt.Errorf("%s: take: %w", s.what, err)
	}
	finish, cancel := recipe.FinishContext(ctx)
	defer cancel()
	err = s.client.Delete(finish, p, stat.Version)
	switch {
	case err == nil:
		return data, false, nil
	case errors.Is(err, ErrOutcomeUnknown):
		return nil, false, fmt.Errorf("%s: take %s: %w", s.what, name, err)
	case recipe.IsNoNode(err), errors.Is(err, zk.ErrBadVersion):
		return nil, true, nil // another taker's
	}
	return nil, false, fmt.Errorf("%s: take: %w", s.what, err)
}
