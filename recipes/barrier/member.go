package barrier

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Member is one member of a Double, from its Enter to its Leave.
type Member struct {
	d       *Double
	name    string             // the node's name: a UUID, as Curator's
	node    string             // its path
	session *framework.Session // the session the node was made in
	leaving atomic.Bool        // Leave was called

	// live tells whether the member's node should still exist; written by
	// Enter, then only by the one Leave that leaving lets through.
	live bool
}

// Node returns the path of the member's node, relative to the client's
// namespace.
func (m *Member) Node() string { return m.node }

// create makes the member's ephemeral node, with container parents, in
// the member's session. A create whose answer was lost is sent again and
// may meet the node it made: the name is the member's own, so a node of
// that name in the member's session is its own.
func (m *Member) create(ctx context.Context) error {
	bound := framework.BindSession(ctx, m.session)
	_, err := m.d.client.Create(bound, m.node, nil, framework.Ephemeral, framework.WithParents())
	switch {
	case err == nil:
		m.live = true
		return nil
	case errors.Is(err, framework.ErrSessionChanged):
		return errSessionEnded // and the client deletes what it made there
	case errors.Is(err, framework.ErrClosed):
		return m.d.errorf("enter", err) // what it made went with the session
	case errors.Is(err, zk.ErrNodeExists):
		ok, stat, serr := m.d.client.Exists(bound, m.node)
		if serr == nil && ok && stat.EphemeralOwner == m.session.ID() {
			m.live = true
			return nil
		}
	}
	// Any other failure may follow a try the server applied: an answer
	// lost, then the retry policy spent or ctx ended (the client's call
	// then goes on: a create with parents makes them, then the node
	// again), or a request the server applies after its connection was
	// cut. The node may so appear after this delete: look again later too.
	m.live = true
	m.abandon(ctx)
	m.deleteLater()
	return m.d.errorf("enter", err)
}

// laterLooks are when a member's node that an abandoned create may still
// make is looked for again, after the first delete: the framework's own
// clean-up of lost creates looks as late.
var laterLooks = [...]time.Duration{time.Second, 5 * time.Second}

// deleteLater deletes the member's node laterLooks after now, in the
// background. Its name is a fresh UUID, so a node of that name is this
// member's.
func (m *Member) deleteLater() {
	go func() { // ends after the last look, or at the first if the client is closed
		start := time.Now()
		for _, at := range laterLooks {
			time.Sleep(time.Until(start.Add(at)))
			done, err := m.d.client.DeleteInBackground(m.node)
			if err != nil {
				return // the client is closed: the session and its node are gone
			}
			<-done
		}
	}()
}

// awaitOpen waits until the barrier is open: ready is created (ready is
// the watch set on it before the member's node was made), or the members
// counted reach the threshold, when this member creates ready itself. It
// looks again after any other event, as Curator does since GH-1290.
func (m *Member) awaitOpen(ctx context.Context, ready <-chan zk.Event) error {
	bound := framework.BindSession(ctx, m.session)
	for {
		names, _, err := m.d.client.Children(bound, m.d.path)
		if err != nil {
			return m.waitError(err)
		}
		if len(names) >= m.d.members { // every child counts, as in Curator
			_, err := m.d.client.Create(bound, m.d.readyPath(), nil, framework.Persistent)
			if err != nil && !errors.Is(err, zk.ErrNodeExists) {
				return m.waitError(err)
			}
			return nil
		}
		select {
		case ev := <-ready:
			if ev.Type == zk.EventNodeCreated {
				return nil // open, even if ready is already gone again
			}
			var open bool
			if open, _, ready, err = m.d.client.ExistsW(bound, m.d.readyPath()); err != nil || open {
				return m.waitError(err)
			}
		case <-m.session.Lost():
			return m.waitError(framework.ErrSessionChanged)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// waitError is the error of a wait of the member's: ErrLost once its
// session is gone, since its node went with it, unless the client's Close
// ended it.
func (m *Member) waitError(err error) error {
	if err != nil && m.d.client.IsClosed() {
		return recipe.ClosedError(m.d.client, err)
	}
	if err != nil && (errors.Is(err, framework.ErrSessionChanged) || m.session.IsLost()) {
		return recipe.Errorf("%w: session lost while waiting: %w", ErrLost, err)
	}
	return err
}

// abandon deletes the member's node, if it has one, under a context of
// its own; what it cannot delete is left to the client's background
// deletion, or went with the member's session.
func (m *Member) abandon(ctx context.Context) {
	if !m.live {
		return
	}
	m.live = false
	err := recipe.DeleteNode(ctx, m.d.client, framework.Node{Path: m.node, Name: m.name, Session: m.session})
	if err != nil && !errors.Is(err, framework.ErrSessionChanged) {
		m.d.opts.log(m.d.client).Warn("could not delete a member's node; the client deletes it in the background",
			recipe.LogAttr("node", m.node), recipe.ErrAttr(err))
	}
}

// lostError is the error of a member whose node is gone before it left;
// with the client closed, that is why.
func (m *Member) lostError() error {
	if m.d.client.IsClosed() {
		return m.d.errorf("leave", fmt.Errorf("%w: member %s", ErrClosed, m.name))
	}
	why := "deleted by someone else"
	if m.session.IsLost() {
		why = "gone with its session"
	}
	return fmt.Errorf("barrier: leave %s: %w: member %s %s", m.d.path, ErrLost, m.name, why)
}
