package framework

import (
	"context"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// Node is a node made by CreateProtected.
type Node struct {
	// Path is the node's path relative to the namespace, sequence included.
	Path string
	// Name is the last element of Path.
	Name string
	// ProtectionID is the id in the node's name.
	ProtectionID string
	// Session is the session the create ran in: for ephemeral modes, the
	// node's owner, and the node is gone once that session is lost.
	Session *Session
}

// CreateProtected creates a node whose name carries a protection id, in
// Curator's format: "_c_" + UUID + "-" + the last element of path, and for
// sequential modes the server's sequence after it. If the answer to a create
// is lost, the next attempt looks for the node by its id instead of creating
// another, and takes it only if it is ephemeral in the current session (or
// persistent); a node of an older session is deleted. If the call fails or
// ctx ends while a create may have reached the server, the node is found and
// deleted in the background once the connection is back. So the call either
// returns exactly one node that the caller owns, or an error and, in the
// end, no node. With ctx ended already, nothing is sent and the error
// wraps ctx's.
func (c *Client) CreateProtected(ctx context.Context, path string, data []byte, mode CreateMode, opts ...CreateOption) (Node, error) {
	pc, err := c.newProtectedCreate(path, data, mode, opts)
	if err != nil {
		return Node{}, err
	}
	return pc.call(ctx)
}

func (c *Client) newProtectedCreate(path string, data []byte, mode CreateMode, opts []CreateOption) (*protectedCreate, error) {
	id := zkpath.NewProtectionID()
	r, err := c.newCreateRequest(path, data, mode, opts, id)
	if err != nil {
		return nil, opError("create", path, err)
	}
	parent, _ := zkpath.Split(r.path)
	return &protectedCreate{c: c, req: r, parent: parent, id: id, clientPath: path}, nil
}

// call runs the create and answers when it is done or ctx ends, leaving
// whatever it may have created to be deleted in the background on failure.
func (pc *protectedCreate) call(ctx context.Context) (Node, error) {
	if err := ctx.Err(); err != nil {
		return Node{}, opError("create", pc.clientPath, err) // nothing sent
	}
	var (
		node      Node
		finished  <-chan struct{}
		abandoned bool
		err       error
	)
	if ctx.Done() == nil {
		// answerOrAbandon would run it here too; this saves the closure.
		node, err = pc.run(ctx)
	} else {
		node, finished, abandoned, err = answerOrAbandon(ctx, func() (Node, error) { return pc.run(ctx) })
	}
	switch {
	case err == nil:
		return node, nil
	case abandoned:
		// The loop may still create the node: delete whatever it made once
		// it has finished.
		pc.c.findAndDeleteInBackground(pc.parent, []string{pc.id}, nil, finished)
		return Node{}, opError("create", pc.clientPath, err)
	case pc.sent:
		pc.c.findAndDeleteInBackground(pc.parent, []string{pc.id}, nil, nil)
	}
	return Node{}, err
}

// protectedCreate is one CreateProtected call.
type protectedCreate struct {
	c          *Client
	req        createRequest // req.path is the protected server path
	parent     string        // server path
	id         string
	clientPath string
	sent       bool // a create was sent: the node may exist
	lost       bool // a create's answer was lost: it may still be applied
}

// run is the retry loop of a protected create. Unlike retry, it makes its
// server calls synchronously, so that when it returns no create of its own
// is still in flight.
func (pc *protectedCreate) run(ctx context.Context) (Node, error) {
	node, err := retrySteps(ctx, pc.c, "create", pc.clientPath, func() (Node, error) {
		return onConn(pc.c, func() (Node, error) { return pc.attempt(ctx) })
	})
	if err == nil && pc.lost {
		// A create cut off with its connection may reach the server after
		// this one: look for such a twin, now and later.
		pc.c.findAndDeleteInBackground(pc.parent, []string{pc.id}, map[string]bool{node.Name: true}, nil)
	}
	return node, err
}

func (pc *protectedCreate) attempt(ctx context.Context) (Node, error) {
	conn, session, err := pc.c.boundConnection(ctx)
	if err != nil {
		return Node{}, err
	}
	if leftBound(ctx, conn, session) {
		return Node{}, ErrSessionChanged // nothing sent (see runBound)
	}
	if pc.sent {
		// An earlier create may have succeeded with its answer lost.
		if node, found, err := pc.find(conn, session); err != nil || found {
			return node, err
		}
	}
	if err := ctx.Err(); err != nil {
		// The caller has left since the call began (this try may run on,
		// abandoned): a create now would only make a node for the clean-up
		// to delete, which others would see meanwhile.
		return Node{}, err
	}
	return pc.create(conn, session, boundSession(ctx) != nil)
}

func (pc *protectedCreate) create(conn *zk.Conn, session *Session, bound bool) (Node, error) {
	pc.sent = true
	if bound {
		// Refused if written in another session (see runBound).
		w := pc.c.bound.Add(pc.req.path, session.id)
		defer w.Done()
	}
	created, in, err := runInSession(conn, session, func() (string, error) { return pc.c.createOnce(conn, pc.req, pc.req.path) })
	if err != nil {
		pc.lost = pc.lost || IsRetryable(err)
		return Node{}, err
	}
	if !pc.req.mode.IsEphemeral() || in {
		return pc.node(created, session), nil
	}
	// The session changed around the call: check who owns the node, as
	// if it had been found rather than created.
	if node, found, err := pc.check(conn, session, created); err != nil || found {
		pc.lost = pc.lost || IsRetryable(err)
		return node, err
	}
	return Node{}, zk.ErrConnectionClosed // retry in the current session
}

// find looks for the node by its protection id.
func (pc *protectedCreate) find(conn *zk.Conn, session *Session) (Node, bool, error) {
	children, _, err := conn.Children(pc.parent)
	if isNoNode(err) {
		return Node{}, false, nil
	}
	if err != nil {
		return Node{}, false, err
	}
	for _, name := range children {
		if zkpath.HasProtectionID(name, pc.id) {
			return pc.check(conn, session, zkpath.Join(pc.parent, name))
		}
	}
	return Node{}, false, nil
}

// check takes the node at path if it belongs to session (ephemeral modes).
// Ownership is judged against the session the connection has now: a node
// of that session, when it is newer than the attempt's, is left for the
// next attempt, made in it, to find and adopt (a retryable error says so),
// never queued for deletion; a node of any other session is deleted in the
// background, while that session still owns it.
func (pc *protectedCreate) check(conn *zk.Conn, session *Session, path string) (Node, bool, error) {
	if !pc.req.mode.IsEphemeral() {
		return pc.node(path, session), true, nil
	}
	ok, stat, err := conn.Exists(path)
	switch {
	case err != nil:
		return Node{}, false, err
	case !ok:
		return Node{}, false, nil
	case stat.EphemeralOwner == session.id:
		return pc.node(path, session), true, nil
	case stat.EphemeralOwner == conn.SessionID():
		return Node{}, false, fmt.Errorf("%w: the node is the newer session's", zk.ErrConnectionClosed)
	}
	pc.c.log.Debug("protected node of another session; deleting it", "path", path)
	pc.c.deleteOwnedInBackground(path, stat.EphemeralOwner)
	return Node{}, false, nil
}

func (pc *protectedCreate) node(serverPath string, session *Session) Node {
	p := pc.c.clientPath(serverPath)
	name, id := zkpath.Base(p), pc.id
	if inName, ok := zkpath.ProtectionID(name); ok && inName == id {
		// The copy in the name: a node kept for a hold then keeps one
		// string, not two (48 bytes fewer per idle hold).
		id = inName
	}
	return Node{Path: p, Name: name, ProtectionID: id, Session: session}
}
