package zktest

import (
	"encoding/binary"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Proxy is a fault-injecting TCP proxy between ZooKeeper clients and one
// server, listening on 127.0.0.1. It forwards whole ZooKeeper packets, so it
// can delay them, drop them during a partition, and recognise creates and
// their replies. A TLS connection it forwards as bytes, which it cannot
// read: the faults of bytes and time apply to it, those that pick a
// packet do not (see pumpRaw). Its methods are safe for concurrent use.
type Proxy struct {
	target string
	ln     net.Listener
	done   chan struct{} // closed by Close
	wg     sync.WaitGroup

	mu     sync.Mutex
	links  map[*link]struct{}
	paused bool
	oneWay bool          // PauseRequests: only client-to-server packets are dropped
	deaf   bool          // PauseReplies: only server-to-client packets are dropped
	held   chan struct{} // set by HoldReplies; closed by ReleaseReplies
	armed  int           // creates whose reply is still to be swallowed
	armOps map[int32]int // requests, by type, whose reply is still to be swallowed
	holdOn map[int32]int // request types whose next reply starts a HoldReplies
	asides map[int32]int // request types whose next reply is set aside (SetAsideNextReply)
	// releases counts ReleaseReplies calls: a HoldRepliesFrom armed before
	// the last of them is withdrawn, even if its request has gone out.
	releases int
	closed   bool

	version   atomic.Pointer[string] // what srvr answers; nil: the server's answer
	lacking   sync.Map               // opcode (int32) -> struct{}: requests the server is made to lack (Unimplement)
	delay     atomic.Int64           // time.Duration added before forwarding a packet
	dropped   atomic.Int64           // replies swallowed by DropNextCreateReply and DropNextReply
	droppedBy sync.Map               // opcode (int32) -> *atomic.Int64: replies swallowed by DropNextReply
	requests  sync.Map               // opcode (int32) -> *atomic.Int64: requests seen
	answers   sync.Map               // opcode (int32) -> *atomic.Int64: requests the server answered (Answered)
	notified  atomic.Int64           // watch notifications (xid -1) forwarded to clients
	stalls    atomic.Int64           // connections still to be stalled (StallNextConnection)
	stalled   atomic.Int64           // connections stalled
}

// Request types that tests count with Requests.
const (
	OpCreate          int32 = opCreate
	OpCreateContainer int32 = opCreateContainer
	OpDelete          int32 = opDelete
	OpExists          int32 = 3
	OpGetData         int32 = 4
	OpGetChildren2    int32 = 12 // go-zookeeper's Children
	OpSetData         int32 = opSetData
	OpMulti           int32 = opMulti
	OpSetAuth         int32 = opSetAuth
	OpMultiRead       int32 = 22
	OpSetWatches      int32 = 101
	OpSetWatches2     int32 = 105
	OpAddWatch        int32 = 106
	OpRemoveWatches   int32 = 18
	OpCloseSession    int32 = -11
)

// Unimplement makes the server lack the requests of types ops, as a server
// before ZooKeeper 3.6 or another implementation of the protocol does: the
// proxy changes their opcode to one no server knows, and the real server
// answers UNIMPLEMENTED. It is for connections made from now on and the
// open ones alike.
func (p *Proxy) Unimplement(ops ...int32) {
	for _, op := range ops {
		p.lacking.Store(op, struct{}{})
	}
}

// ReportVersion makes the proxy answer the four-letter word srvr itself,
// with ZooKeeper version v ("3.4.14"), as a server of that version would.
// The client asks each server's version once, before it sends the
// requests of ZooKeeper 3.6: with Unimplement, it makes an older server.
func (p *Proxy) ReportVersion(v string) { p.version.Store(&v) }

// unknownOpcode is an opcode no ZooKeeper server implements.
const unknownOpcode = 9999

// unimplement rewrites a request frame's opcode if Unimplement names it.
func (p *Proxy) unimplement(frame []byte) {
	if _, op, ok := requestHeader(frame); ok {
		if _, lacking := p.lacking.Load(op); lacking {
			binary.BigEndian.PutUint32(frame[8:12], unknownOpcode)
		}
	}
}

// Requests returns how many requests of type op clients have sent through
// the proxy, so a test can tell which calls a recipe made.
func (p *Proxy) Requests(op int32) int64 {
	if n, ok := p.requests.Load(op); ok {
		return n.(*atomic.Int64).Load()
	}
	return 0
}

// RequestsSent returns how many requests of every type but pings clients
// have sent through the proxy, by type, so that a test can compare what
// a recipe sent before and after a step.
func (p *Proxy) RequestsSent() map[int32]int64 {
	const opPing = 11
	sent := make(map[int32]int64)
	p.requests.Range(func(op, n any) bool {
		if k := n.(*atomic.Int64).Load(); k > 0 && op.(int32) != opPing {
			sent[op.(int32)] = k
		}
		return true
	})
	return sent
}

// Answered returns how many requests of type op the server has answered
// through the proxy: replies that have reached the proxy, whether it
// forwarded them, holds them or swallowed them. A request Requests counts
// may not have reached the server yet (the proxy delays it, or the
// server's threads have not read it); one Answered counts, the server has
// run, so a test can order it before what clients send next.
func (p *Proxy) Answered(op int32) int64 {
	if n, ok := p.answers.Load(op); ok {
		return n.(*atomic.Int64).Load()
	}
	return 0
}

// countAnswer counts a reply to a request of type op, if ok.
func (p *Proxy) countAnswer(op int32, ok bool) {
	if ok {
		n, _ := p.answers.LoadOrStore(op, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
	}
}

// MakeOld makes the server behind the proxy look like ZooKeeper 3.5: no
// addWatch, no multi-read, no setWatches2. Recipes then wait on one-shot
// watches, the path a test of their request counts on it pins down.
func (p *Proxy) MakeOld() {
	p.ReportVersion("3.5.9")
	p.Unimplement(OpAddWatch, OpMultiRead, OpSetWatches2)
}

// Notifications returns how many watch notifications (server packets with
// xid -1) the proxy has forwarded to clients, one per event and connection,
// so that a test can tell what a recipe's watches cost the server.
func (p *Proxy) Notifications() int64 { return p.notified.Load() }

// countNotification counts a server frame if it is a watch notification.
func (p *Proxy) countNotification(frame []byte) {
	if xid, ok := replyXid(frame); ok && xid == notificationXid {
		p.notified.Add(1)
	}
}

// notificationXid is the xid of the server's watch notifications.
const notificationXid = -1

// countRequest counts a client request frame by its type.
func (p *Proxy) countRequest(frame []byte) {
	if _, op, ok := requestHeader(frame); ok {
		n, _ := p.requests.LoadOrStore(op, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
	}
}

// NewProxy starts a proxy to the server at target on a free loopback port;
// it is closed when the test ends. A connection to the proxy is forwarded to
// a new connection to target.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("zktest: proxy listen: %v", err)
	}
	p := &Proxy{target: target, ln: ln, done: make(chan struct{}), links: make(map[*link]struct{}),
		armOps: make(map[int32]int), holdOn: make(map[int32]int), asides: make(map[int32]int)}
	p.wg.Add(1)
	// Ends when Close closes the listener.
	go p.acceptLoop()
	t.Cleanup(p.Close)
	return p
}

// Addr returns the address clients connect to, "127.0.0.1:PORT".
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Pause partitions clients from the server: connections stay open, but
// every packet in either direction is dropped, and new connections are
// accepted and get nothing. A client sees its requests and pings go
// unanswered; the server sees a client go silent, and expires its session
// after the session timeout.
func (p *Proxy) Pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paused = true
}

// PauseRequests partitions clients from the server in one direction only:
// every packet from a client is dropped (new connections get nothing
// through either), while the server's packets still reach the clients.
// A client keeps receiving watch notifications, so it never misses a
// packet and go-zookeeper never reports a disconnect; the server hears
// nothing, and expires the session after the session timeout.
func (p *Proxy) PauseRequests() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.oneWay = true
}

// PauseReplies partitions clients from the server in the other direction:
// every packet from the server is dropped, while the clients' requests and
// pings still reach it. The server applies what it is sent and hears from
// the session; a client hears nothing, so go-zookeeper reports a
// disconnect after its receive timeout and dials again, and its handshakes
// reach the server but their answers do not.
func (p *Proxy) PauseReplies() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.deaf = true
}

// Resume ends a partition. Connections that lost packets during it are cut
// (their clients reconnect), since their request and reply streams no
// longer match; connections that lost nothing carry on.
func (p *Proxy) Resume() {
	p.mu.Lock()
	p.paused, p.oneWay, p.deaf = false, false, false
	var cut []*link
	for l := range p.links {
		if l.tainted.Load() {
			cut = append(cut, l)
		}
	}
	p.mu.Unlock()
	for _, l := range cut {
		l.close()
	}
}

// HoldReplies keeps every packet from the server back, in order, until
// ReleaseReplies, while requests still go through: a test sees which
// requests a client sends before it has any answer.
func (p *Proxy) HoldReplies() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held == nil {
		p.held = make(chan struct{})
	}
}

// ReleaseReplies forwards the packets HoldReplies kept back, and what
// follows them, and the replies SetAsideNextReply set aside. It also
// withdraws every HoldRepliesFrom whose reply has not come yet: a reply
// still on its way from the server when the test released would
// otherwise be held for good.
func (p *Proxy) ReleaseReplies() { p.releaseReplies(0) }

// ReleaseRepliesHoldingFrom releases as ReleaseReplies does, and arms
// HoldRepliesFrom(op) at once: a client that sends its next request of
// type op only after a released reply has that request's answer held,
// which a HoldRepliesFrom after ReleaseReplies would race with.
func (p *Proxy) ReleaseRepliesHoldingFrom(op int32) { p.releaseReplies(op) }

// releaseReplies releases, and arms a hold of the replies from the next
// request of type op unless op is 0.
func (p *Proxy) releaseReplies(op int32) {
	p.mu.Lock()
	clear(p.holdOn)
	if op != 0 {
		p.holdOn[op]++
	}
	p.releases++
	if p.held != nil {
		close(p.held)
		p.held = nil
	}
	p.mu.Unlock()
	for _, l := range p.snapshot() {
		l.releaseAside() // not under p.mu: a pump holds l.toClient as it takes p.mu
	}
}

// repliesHeld returns the channel to wait on before forwarding a packet
// from the server, or nil if none is held.
func (p *Proxy) repliesHeld() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held
}

// StallNextConnection makes the proxy accept the next connection a client
// opens and leave it open and unanswered until the proxy is closed, as
// ZooKeeper 3.8.0 standalone does to a connection that arrives while it
// starts (ZOOKEEPER-5051): the client's handshake gets no answer, and no
// end either. Cut leaves it be. Each call stalls one more connection.
func (p *Proxy) StallNextConnection() { p.stalls.Add(1) }

// Stalled returns how many connections StallNextConnection has stalled.
func (p *Proxy) Stalled() int64 { return p.stalled.Load() }

// takeStall consumes one armed StallNextConnection, if any.
func (p *Proxy) takeStall() bool {
	for {
		n := p.stalls.Load()
		if n == 0 {
			return false
		}
		if p.stalls.CompareAndSwap(n, n-1) {
			p.stalled.Add(1)
			return true
		}
	}
}

// Cut closes every current connection at once; new ones are accepted.
func (p *Proxy) Cut() {
	for _, l := range p.snapshot() {
		l.close()
	}
}

// SetDelay adds d before each packet is forwarded, in each direction, so a
// request and its reply take at least 2d more. Packets in flight in one
// direction queue behind one another. Zero removes the delay.
func (p *Proxy) SetDelay(d time.Duration) { p.delay.Store(int64(d)) }

// DropNextCreateReply makes the proxy forward the next create request
// (create, create2, createContainer, createTTL, or a multi holding one) to
// the server, swallow the server's reply to it, and cut that connection:
// the node exists, but the client sees its connection lost instead of the
// answer. Each call arms one more create.
func (p *Proxy) DropNextCreateReply() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.armed++
}

// DropNextReply makes the proxy forward the next request of type op (such
// as OpSetData, OpMulti, OpSetAuth) to the server, swallow the server's
// reply to it, and cut that connection: the server applied the request,
// but the client sees its connection lost instead of the answer. Each call
// arms one more request of that type.
func (p *Proxy) DropNextReply(op int32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.armOps[op]++
}

// takeArmedOp consumes one armed DropNextReply of op, if any.
func (p *Proxy) takeArmedOp(op int32) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return takeOne(p.armOps, op)
}

// takeOne consumes one of the requests of type op that counts holds
// armed, if any; p.mu held.
func takeOne(counts map[int32]int, op int32) bool {
	if counts[op] == 0 {
		return false
	}
	counts[op]--
	return true
}

// DroppedRepliesOf returns how many replies to requests of type op
// DropNextReply has swallowed.
func (p *Proxy) DroppedRepliesOf(op int32) int {
	if n, ok := p.droppedBy.Load(op); ok {
		return int(n.(*atomic.Int64).Load())
	}
	return 0
}

// HoldRepliesFrom lets replies through until the reply to the next request
// of type op, and holds that reply and every packet after it, as
// HoldReplies does, until ReleaseReplies: a test sees what a client does
// when one answer, and only the answers from it on, do not come.
func (p *Proxy) HoldRepliesFrom(op int32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.holdOn[op]++
}

// SetAsideNextReply makes the proxy set the reply to the next request of
// type op aside, and forward what follows it, until ReleaseReplies
// forwards it: the client reads later replies and watch events before
// that one, as it never could from a server. A test sees what a client
// does with the answers it gets before a request's, such as those after a
// reconnect and before its watches are known to be set again.
func (p *Proxy) SetAsideNextReply(op int32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asides[op]++
}

// takeAside consumes one armed SetAsideNextReply of op, if any.
func (p *Proxy) takeAside(op int32) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return takeOne(p.asides, op)
}

// takeHoldOn consumes one armed HoldRepliesFrom of op, if any, and says
// how many releases the proxy has made so far.
func (p *Proxy) takeHoldOn(op int32) (releases int, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !takeOne(p.holdOn, op) {
		return 0, false
	}
	return p.releases, true
}

// holdRepliesArmedAt starts holding replies for a HoldRepliesFrom armed
// when the proxy had made releases releases, unless ReleaseReplies has
// been called since: that release withdrew it.
func (p *Proxy) holdRepliesArmedAt(releases int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.releases == releases && p.held == nil {
		p.held = make(chan struct{})
	}
}

// DroppedReplies returns how many replies DropNextCreateReply and
// DropNextReply have swallowed.
func (p *Proxy) DroppedReplies() int { return int(p.dropped.Load()) }

// Close stops accepting, closes every connection and returns once all of
// the proxy's goroutines have ended. Later calls do nothing.
func (p *Proxy) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	close(p.done)
	p.mu.Unlock()
	_ = p.ln.Close()
	p.Cut()
	p.wg.Wait()
}

// snapshot returns the current connections.
func (p *Proxy) snapshot() []*link {
	p.mu.Lock()
	defer p.mu.Unlock()
	links := make([]*link, 0, len(p.links))
	for l := range p.links {
		links = append(links, l)
	}
	return links
}

// isPaused tells whether a partition drops packets going one way.
func (p *Proxy) isPaused(fromClient bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.paused || (p.oneWay && fromClient) || (p.deaf && !fromClient)
}

// takeArmed consumes one armed DropNextCreateReply, if any.
func (p *Proxy) takeArmed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.armed == 0 {
		return false
	}
	p.armed--
	return true
}

// Sent returns how many requests clients have sent through the proxy,
// pings and connection handshakes aside: what a test's own client cost,
// undisturbed by the background work of other tests on a shared server.
func (p *Proxy) Sent() int64 {
	var n int64
	p.requests.Range(func(op, count any) bool {
		if op.(int32) != opPing {
			n += count.(*atomic.Int64).Load()
		}
		return true
	})
	return n
}
