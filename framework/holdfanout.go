package framework

import (
	"sync"

	"github.com/go-zookeeper/zk"
)

// HoldListener is what a hold registered with WatchHold is told. Its
// methods run on the client's own goroutines (NodeEvent on the one that
// reads the connection) and must not block: hand slow work to a goroutine
// of your own.
type HoldListener interface {
	// Interrupted is called once when the node's session is interrupted
	// under the hold's error policy (Session.Interrupted closes).
	Interrupted()
	// NodeEvent is called with every watch event of the node's path: the
	// node was deleted or its data changed. Some watch on the path, the
	// hold's own or another of the client's, must be set for the server
	// to send any.
	NodeEvent(zk.Event)
}

// HoldRegistration is a hold's registration with WatchHold.
type HoldRegistration struct {
	f           *holdFanout
	path        string // server path
	interrupted <-chan struct{}
	l           HoldListener
}

// WatchHold registers a held node with the client, which fans its
// session's interruption and its node's watch events out to the holds
// registered with it: a process holding ten thousand nodes keeps one
// goroutine per session and connection period, not one per hold. If the
// session is interrupted already, l is told at once, on another
// goroutine. One listener per node: a second registration of the same
// node replaces the first one's node events.
func (h Hooks) WatchHold(node Node, policy ErrorPolicy, l HoldListener) HoldRegistration {
	return h.c.holds().register(h.c.withNamespace(node.Path), node.Session.Interrupted(policy), l)
}

// Stop ends the registration. It may be called more than once.
func (r HoldRegistration) Stop() {
	if r.f == nil {
		return
	}
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	if r.f.nodes[r.path] == r.l {
		delete(r.f.nodes, r.path)
	}
	if g, ok := r.f.groups[r.interrupted]; ok {
		delete(g, r.l)
	}
}

// holdFanout is the client's registry of held nodes.
type holdFanout struct {
	mu     sync.Mutex
	nodes  map[string]HoldListener                       // by server path
	groups map[<-chan struct{}]map[HoldListener]struct{} // by interruption channel
}

// holds returns the client's registry, made at the first registration.
func (c *Client) holds() *holdFanout {
	c.holdsOnce.Do(func() {
		c.holdRegistry = &holdFanout{nodes: make(map[string]HoldListener), groups: make(map[<-chan struct{}]map[HoldListener]struct{})}
	})
	return c.holdRegistry
}

func (f *holdFanout) register(path string, interrupted <-chan struct{}, l HoldListener) HoldRegistration {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nodes[path] = l
	group, ok := f.groups[interrupted]
	if !ok {
		group = make(map[HoldListener]struct{})
		f.groups[interrupted] = group
		// Ends when the channel closes: at the end of the connection
		// period or of the session, when the client is closed at the
		// latest.
		go f.fanOut(interrupted)
	}
	group[l] = struct{}{}
	return HoldRegistration{f: f, path: path, interrupted: interrupted, l: l}
}

// fanOut waits for one interruption channel and tells every hold that
// registered on it.
func (f *holdFanout) fanOut(interrupted <-chan struct{}) {
	<-interrupted
	f.mu.Lock()
	group := f.groups[interrupted]
	delete(f.groups, interrupted)
	f.mu.Unlock()
	for l := range group {
		l.Interrupted()
	}
}

// nodeEvent hands a watch event from go-zookeeper's event callback to the
// hold registered on its path, if any.
func (f *holdFanout) nodeEvent(ev zk.Event) {
	f.mu.Lock()
	l := f.nodes[ev.Path]
	f.mu.Unlock()
	if l != nil {
		l.NodeEvent(ev)
	}
}
