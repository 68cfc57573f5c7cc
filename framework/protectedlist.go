package framework

import (
	"context"
	"slices"
)

// createProtectedAndList is Hooks.CreateProtectedAndList.
func (c *Client) createProtectedAndList(ctx context.Context, path string, data []byte, mode CreateMode, opts ...CreateOption) (node Node, children []string, err error) {
	pc, err := c.newProtectedCreate(path, data, mode, opts)
	if err != nil {
		return Node{}, nil, err
	}
	expected := c.tap.Expect(pc.req.path)
	defer expected.Stop()
	listed := make(chan listing) // unbuffered: one allocation, not two
	// Ends once it has handed over the listing, or nothing to a caller
	// whose create ended unwritten; a caller that leaves without taking it
	// hands it to drain.
	go c.listOnceWritten(pc.parent, expected.Written, listed)
	node, err = pc.call(ctx)
	if err != nil {
		go drain(listed) // the listing, if sent, ends on its own
		return Node{}, nil, err
	}
	select {
	case l := <-listed:
		children = l.names
		if !l.sent {
			children = c.listNow(pc.parent) // nothing won the race above
		}
	case <-ctx.Done():
		// The create's answer came and the listing's has not: the node is
		// the caller's, who will find ctx ended at its next call.
		go drain(listed)
		return node, nil, nil
	}
	if !slices.Contains(children, node.Name) {
		children = nil // listed before the create took effect, or failed
	}
	return node, children, nil
}

// listOnceWritten lists parent once written is closed and hands the
// listing over on listed, or hands over an empty listing to a caller whose
// create ended unwritten.
func (c *Client) listOnceWritten(parent string, written <-chan struct{}, listed chan<- listing) {
	select {
	case <-written:
		listed <- listing{names: c.listNow(parent), sent: true}
		return
	default:
	}
	// The caller takes a value only once its create has ended, and a
	// written create closes written before its answer can come: parked
	// here, this goroutine is woken by written first. Only if written
	// closes between the two selects can nothing win, and the caller
	// then lists the queue itself, as this goroutine would have.
	select {
	case <-written:
		listed <- listing{names: c.listNow(parent), sent: true}
	case listed <- listing{}:
	}
}

// listing is what the listing goroutine hands over: the children it
// listed (nil if the listing failed), unless it sent none.
type listing struct {
	names []string
	sent  bool
}

// drain takes the one value a listing goroutine sends, so that it ends
// when its caller has left; it ends with that value.
func drain(listed <-chan listing) { <-listed }

// listNow lists the children of a server path with one request on the
// current connection, or returns nil if that is not up or the request
// fails.
func (c *Client) listNow(serverPath string) []string {
	c.mu.Lock()
	conn, up := c.conn, c.connected && c.session != nil
	c.mu.Unlock()
	if !up {
		return nil
	}
	names, err := onConn(c, func() ([]string, error) {
		names, _, err := conn.Children(serverPath)
		return names, err
	})
	if err != nil {
		return nil
	}
	return names
}
