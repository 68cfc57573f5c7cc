package queue

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// itemLock is a consumer's lock node of one item, Curator's lock-safe
// mode: an ephemeral node named after the item under the lock path. While
// it stands, no lock-safe consumer (Go or Java) takes the item; it is
// deleted in the transaction that deletes the item, or when the session
// ends, so the item is never deleted before its function has returned.
type itemLock struct {
	path    string
	session *framework.Session
	claims  *claims
}

// takeLocked takes an item in the lock-safe (or, with a TxFunc,
// transactional) mode: lock, read, call, then delete item and lock
// together.
func (cn *Consumer[T]) takeLocked(ctx context.Context, name string) outcome {
	work := context.WithoutCancel(ctx)
	l, o := cn.b.c.lock(work, name)
	if l == nil {
		return o
	}
	defer l.done()
	items, data, version, end := cn.read(work, name)
	if end != nil {
		cn.b.c.unlock(work, l)
		return *end
	}
	fnCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The function's ctx ends with the lock's session too: the lock is gone,
	// and another consumer may be taking the item.
	go func() { // ends when the function's ctx does
		select {
		case <-l.session.Lost():
			cancel()
		case <-fnCtx.Done():
		}
	}()
	ops, err := cn.consume(fnCtx, items)
	if err != nil && fnCtx.Err() != nil {
		cn.b.c.unlock(work, l)
		// Left as it was: for the next listing, unless the consumer stops.
		return outcome{name: name, refusing: ctx.Err() != nil}
	}
	head := []framework.Op{framework.DeleteOp(cn.b.c.itemPath(name), version), framework.DeleteOp(l.path, -1)}
	if err != nil {
		ops = cn.giveBack(name, data, err)
	}
	for gaveBack := err != nil; ; gaveBack = true {
		r := cn.b.c.commit(work, l, head, ops)
		switch {
		case r.err == nil:
			return outcome{name: name, took: true}
		case r.failedOp && !gaveBack:
			ops = cn.giveBack(name, data, r.err)
			continue
		}
		cn.b.c.unlock(work, l)
		if r.gone {
			return outcome{name: name, gone: true}
		}
		cn.b.c.log().Warn("queue item not taken", "node", cn.b.c.itemPath(name), "err", r.err)
		return outcome{name: name}
	}
}

// lock creates the item's lock node in the current session. Held by
// another consumer: the outcome says so. The lock is claimed in the
// process first, so that two consumers (or a consumer and a Remove) of
// one client never both take a node of their common session for their
// own: then a create whose answer was lost, sent again by the client,
// finds the node, and it is this caller's if its ephemeral owner is the
// session. The caller ends with done.
func (c *core) lock(ctx context.Context, name string) (*itemLock, outcome) {
	session := c.client.Session()
	if session == nil {
		return nil, outcome{name: name}
	}
	l := &itemLock{path: c.lockOf(name), session: session, claims: c.claims()}
	if !l.claims.claim(l.path) {
		return nil, outcome{name: name, held: l.path}
	}
	bound := framework.BindSession(ctx, session)
	_, err := c.client.Create(bound, l.path, nil, framework.Ephemeral)
	switch {
	case err == nil:
		return l, outcome{}
	case errors.Is(err, zk.ErrNodeExists):
		held, stat, err := c.client.Exists(bound, l.path)
		if err == nil && held && stat.EphemeralOwner == session.ID() {
			return l, outcome{} // ours: the create ran, its answer was lost
		}
		l.done()
		return nil, outcome{name: name, held: l.path}
	}
	if recipe.IsNoNode(err) {
		l.done()
		if err := c.ensureDirs(ctx); err != nil {
			c.log().Warn("queue directories not created", "path", c.opts.lockPath, "err", err)
		}
		return nil, outcome{name: name}
	}
	c.log().Warn("queue item not locked", "node", l.path, "err", err)
	if !errors.Is(err, framework.ErrClosed) {
		// The create may have run (its answer lost, then the retries
		// spent): delete the node in its session, still claimed, so that
		// no lock stands for an item nobody is taking.
		c.unlock(ctx, l)
	}
	l.done()
	return nil, outcome{name: name}
}

// claims are the lock nodes that a client's consumers are taking or
// hold, one set per client (framework.Hooks.Shared).
type claims struct {
	mu   sync.Mutex
	held map[string]bool
}

type claimsKey struct{}

func (c *core) claims() *claims {
	return c.client.Hooks().Shared(claimsKey{}, func() any { return &claims{held: make(map[string]bool)} }).(*claims)
}

// claim reports whether path was free in the process, and claims it.
func (cl *claims) claim(path string) bool {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.held[path] {
		return false
	}
	cl.held[path] = true
	return true
}

// done gives up the claim of a lock whose node is deleted, or was never
// made.
func (l *itemLock) done() {
	l.claims.mu.Lock()
	delete(l.claims.held, l.path)
	l.claims.mu.Unlock()
}

// unlock deletes a lock node, leaving its item to the next consumer.
func (c *core) unlock(ctx context.Context, l *itemLock) {
	err := recipe.DeleteNode(ctx, c.client, framework.Node{Path: l.path, Session: l.session})
	if err != nil && !errors.Is(err, framework.ErrSessionChanged) {
		c.log().Warn("queue lock node not deleted", "node", l.path, "err", err)
	}
}

// resolve learns whether a closing transaction whose answer was lost ran,
// from its lock node: only that transaction or the end of its session
// deletes it. Standing and ours: it did not run (and sending it again is
// safe, since each run deletes the lock). Gone while the session lives:
// it ran. Gone with the session: nobody can tell.
func (c *core) resolve(ctx context.Context, l *itemLock) (applied, known bool, _ error) {
	held, stat, err := c.client.Exists(ctx, l.path)
	switch {
	case err != nil:
		return false, false, fmt.Errorf("look for lock node %s: %w", l.path, err)
	case held && stat.EphemeralOwner == l.session.ID():
		return false, true, nil
	case !held && !l.session.IsLost() && c.client.Session() == l.session:
		return true, true, nil
	}
	return false, false, nil
}
