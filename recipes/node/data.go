package node

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// errNotThere says that the node is not there, or not the process's: the
// node's goroutine creates it, with the node's data.
var errNotThere = errors.New("node: no node of the process's")

// SetData sets the node's data: in the node on the server, and in every
// later create. It returns nil once the data is in the node, or, while
// there is no node of the process's to write (it is being created again,
// or another session's node is in its place), once the data is the
// node's: the node's goroutine writes it as soon as the node exists, by
// its create or, when a create on its way carried older data, right
// after it. So SetData never leaves the node with older data for good;
// it does not wait for the node, as Curator's PersistentNode.setData
// does not. AwaitData waits until the data is on the server.
//
// The write is guarded: it is made at the version just read, and only if
// the node's ephemeral owner is the client's session, so a node someone
// else made in its place is never written. Calls run one at a time. An
// error says the data could not be written now; it is the node's all the
// same, written at the node's next look. After Close it returns
// ErrClosed.
func (n *Node) SetData(ctx context.Context, data []byte) error {
	if n.life.Closed() {
		return fmt.Errorf("node %s: set data: %w", n.path, ErrClosed)
	}
	if err := n.takeTurn(ctx); err != nil {
		return fmt.Errorf("node %s: set data: %w", n.path, err)
	}
	defer n.giveTurn()
	n.mu.Lock()
	n.data = bytes.Clone(data)
	n.gen++
	n.mu.Unlock()
	err := n.writeData(ctx)
	if err == nil {
		return nil
	}
	n.poke() // the node's goroutine creates the node, or writes the data, as it can
	if errors.Is(err, errNotThere) {
		return nil
	}
	return fmt.Errorf("node %s: set data: %w", n.path, err)
}

// AwaitData waits until the data SetData last set before the call (or
// New's) is in the process's node on the server: nil once it is, ctx's
// error, or why the node stopped (ErrClosed after Close).
func (n *Node) AwaitData(ctx context.Context) error {
	n.mu.Lock()
	want := n.gen
	n.mu.Unlock()
	for {
		n.mu.Lock()
		there := n.node != "" && n.written >= want
		changed := n.changed
		n.mu.Unlock()
		if there {
			return nil
		}
		if err := n.life.Await(ctx, changed, "await data"); err != nil {
			return err
		}
	}
}

// writeData writes the node's data to its node, unless the node has it
// already; the caller holds the turn. It fails with errNotThere when
// there is no node of the process's to write.
func (n *Node) writeData(ctx context.Context) error {
	n.mu.Lock()
	node, data, gen, written := n.node, n.data, n.gen, n.written
	n.mu.Unlock()
	switch {
	case node == "":
		return errNotThere
	case written >= gen:
		return nil
	}
	for range setAttempts {
		ok, stat, err := n.client.Exists(ctx, node)
		if err != nil {
			return err
		}
		session := n.client.Session()
		if !ok || n.mode.IsEphemeral() && (session == nil || stat.EphemeralOwner != session.ID()) {
			return errNotThere
		}
		_, err = n.client.Set(ctx, node, data, stat.Version)
		switch {
		case err == nil:
			n.wrote(node, gen)
			return nil
		case isNoNode(err):
			return errNotThere
		case !errors.Is(err, zk.ErrBadVersion):
			return err
		}
		// Written by someone between the read and the write: read again.
	}
	return fmt.Errorf("%w: written by others %d times over", zk.ErrBadVersion, setAttempts)
}

// wrote records that node holds the data of version gen.
func (n *Node) wrote(node string, gen uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.node == node && n.written < gen {
		n.written = gen
		n.signal()
	}
}

// behind tells whether the node may lack the node's data: a create
// carried older data, or SetData could not write.
func (n *Node) behind() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.written < n.gen
}

// catchUp writes the node's data to its node, on the node's goroutine,
// and says what to do next (see ensure): look again at once, or after a
// pause.
func (n *Node) catchUp(ctx context.Context) bool {
	if n.takeTurn(ctx) != nil {
		return false // stopping
	}
	err := n.writeData(ctx)
	n.giveTurn()
	if err == nil || errors.Is(err, errNotThere) {
		return false
	}
	return n.failed(err)
}

// takeTurn waits for the turn to write the node's data, or for ctx.
func (n *Node) takeTurn(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err // a free turn must not win the select: an ended call sets nothing
	}
	select {
	case n.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (n *Node) giveTurn() { <-n.turn }

// signal wakes AwaitData's waiters; n.mu held.
func (n *Node) signal() {
	close(n.changed)
	n.changed = make(chan struct{})
}
