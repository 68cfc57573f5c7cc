package zktest

import (
	"bufio"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// dialTimeout bounds the proxy's connect to its target.
const dialTimeout = 5 * time.Second

// link is one proxied connection: a client's and the proxy's own to the
// server.
type link struct {
	client, server net.Conn
	fromClient     *bufio.Reader // reads client; it may hold bytes already
	tainted        atomic.Bool   // a packet was dropped during a pause
	raw            bool          // TLS: bytes forwarded as they come (see pumpRaw)
	closeOnce      sync.Once

	mu     sync.Mutex
	drops  map[int32]int32 // xids whose reply is to be swallowed -> request type (0: a create)
	holds  map[int32]int   // xids whose reply starts a HoldReplies -> Proxy.releases when armed
	asked  map[int32]int32 // xids of requests not answered yet -> request type (Answered)
	asides map[int32]bool  // xids whose reply is to be set aside
	aside  [][]byte        // replies set aside until ReleaseReplies

	toClient sync.Mutex // orders writes to client: the pump's and releaseAside's
}

// markAside records that the reply to xid is to be set aside.
func (l *link) markAside(xid int32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asides[xid] = true
}

// setAside sets frame aside if it is a reply marked so.
func (l *link) setAside(frame []byte) bool {
	xid, ok := replyXid(frame)
	if !ok {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.asides[xid] {
		return false
	}
	delete(l.asides, xid)
	l.aside = append(l.aside, frame)
	return true
}

// releaseAside forwards the replies set aside.
func (l *link) releaseAside() {
	l.mu.Lock()
	frames := l.aside
	l.aside = nil
	l.mu.Unlock()
	l.toClient.Lock()
	defer l.toClient.Unlock()
	for _, f := range frames {
		if _, err := l.client.Write(f); err != nil {
			return
		}
	}
}

// close closes both connections, which ends both pumps.
func (l *link) close() {
	l.closeOnce.Do(func() {
		_ = l.client.Close()
		_ = l.server.Close()
	})
}

// markDrop records that the reply to xid, a request of type op (0 for a
// create of DropNextCreateReply), is to be swallowed.
func (l *link) markDrop(xid, op int32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.drops[xid] = op
}

// markHold records that the reply to xid starts a HoldReplies, armed
// when the proxy had released replies releases times.
func (l *link) markHold(xid int32, releases int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.holds[xid] = releases
}

// isHold tells whether the reply to xid starts a HoldReplies, and how
// many releases the proxy had made when it was armed.
func (l *link) isHold(xid int32) (releases int, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	releases, ok = l.holds[xid]
	return releases, ok
}

// markAsked records that xid is a request of type op still to be answered.
func (l *link) markAsked(xid, op int32) {
	if xid < 0 {
		return // a ping, or a request the server answers under another xid
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asked[xid] = op
}

// answered takes the request that the server's reply to xid answers, and
// returns its type.
func (l *link) answered(xid int32) (op int32, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	op, ok = l.asked[xid]
	delete(l.asked, xid)
	return op, ok
}

// isDrop tells whether the reply to xid is to be swallowed, and the type
// of its request (0 for a create of DropNextCreateReply).
func (l *link) isDrop(xid int32) (op int32, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	op, ok = l.drops[xid]
	return op, ok
}

// acceptLoop accepts clients until Close closes the listener.
func (p *Proxy) acceptLoop() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		// Ends when the client's first bytes are read and its link is
		// started, or the four-letter word is answered, or (a stalled
		// connection) when the proxy closes.
		go p.serve(client)
	}
}

// serve starts a link for a client, or answers a four-letter word
// (srvr, which the client sends to learn the server's version) on a
// connection of its own.
func (p *Proxy) serve(client net.Conn) {
	defer p.wg.Done()
	fromClient := bufio.NewReader(client)
	if first, err := fromClient.Peek(4); err == nil && isFourLetterWord(first) {
		p.answerWord(client, fromClient, string(first))
		return
	}
	if p.takeStall() {
		<-p.done
		_ = client.Close()
		return
	}
	server, err := net.DialTimeout("tcp", p.target, dialTimeout)
	if err != nil {
		_ = client.Close() // the server is down: so is the proxied connection
		return
	}
	l := &link{client: client, server: server, fromClient: fromClient, drops: make(map[int32]int32), holds: make(map[int32]int),
		asked: make(map[int32]int32), asides: make(map[int32]bool), raw: startsTLS(fromClient)}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		l.close()
		return
	}
	p.links[l] = struct{}{}
	p.wg.Add(2)
	p.mu.Unlock()
	// Each pump ends when its source or destination is closed.
	go p.pump(l, true)
	go p.pump(l, false)
}

// isFourLetterWord tells a four-letter word from a connect request, whose
// first bytes are its length: a small number.
func isFourLetterWord(b []byte) bool {
	for _, c := range b {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// answerWord answers srvr with the version ReportVersion set, or passes
// the word to the server and its answer back.
func (p *Proxy) answerWord(client net.Conn, r *bufio.Reader, word string) {
	defer client.Close()
	if v := p.version.Load(); v != nil && word == "srvr" {
		_, _ = io.WriteString(client, "Zookeeper version: "+*v+", built on 01/01/2020 00:00 GMT\nMode: standalone\n")
		return
	}
	server, err := net.DialTimeout("tcp", p.target, dialTimeout)
	if err != nil {
		return
	}
	defer server.Close()
	_ = server.SetDeadline(time.Now().Add(dialTimeout))
	if _, err := io.CopyN(server, r, 4); err != nil {
		return
	}
	_, _ = io.Copy(client, server)
}

// pump forwards packets one way, client to server or back, until either
// side closes or fails; then it closes the link.
func (p *Proxy) pump(l *link, fromClient bool) {
	defer p.wg.Done()
	defer p.forget(l)
	defer l.close()
	src, dst := l.server, l.client
	if fromClient {
		src, dst = l.client, l.server
	}
	r := bufio.NewReader(src)
	if fromClient {
		r = l.fromClient
	}
	if l.raw {
		p.pumpRaw(l, r, fromClient)
		return
	}
	for first := true; ; first = false {
		frame, err := readFrame(r)
		if err != nil {
			return
		}
		if p.isPaused(fromClient) {
			l.tainted.Store(true)
			continue
		}
		// The first packet each way is the connect handshake, without header.
		switch {
		case first:
		case fromClient:
			p.armRequest(l, frame)
			p.unimplement(frame)
		case p.swallowReply(l, frame):
			return // the connection is cut with the reply
		case l.setAside(frame):
			continue
		default:
			p.countNotification(frame)
		}
		if !fromClient {
			l.toClient.Lock()
		}
		ok := p.forward(dst, frame, fromClient)
		if !fromClient {
			l.toClient.Unlock()
		}
		if !ok {
			return
		}
	}
}

// armRequest counts a request and marks, by its xid, the reply that a
// DropNext* or HoldRepliesFrom armed for its type is to swallow or hold.
func (p *Proxy) armRequest(l *link, frame []byte) {
	p.countRequest(frame)
	xid, op, ok := requestHeader(frame)
	if !ok {
		return
	}
	l.markAsked(xid, op)
	if createsNode(frame) && p.takeArmed() {
		l.markDrop(xid, 0) // before the server can answer
	}
	if p.takeArmedOp(op) {
		l.markDrop(xid, op)
		if op == opSetAuth {
			l.markDrop(authXid, op) // servers answer an auth packet with this xid
		}
	}
	if releases, ok := p.takeHoldOn(op); ok {
		l.markHold(xid, releases)
	}
	if p.takeAside(op) {
		l.markAside(xid)
	}
}

// swallowReply reports whether a reply is to be swallowed, with its
// connection cut, and starts holding replies if it is the one to hold.
func (p *Proxy) swallowReply(l *link, frame []byte) bool {
	xid, ok := replyXid(frame)
	if !ok {
		return false
	}
	p.countAnswer(l.answered(xid))
	if op, drop := l.isDrop(xid); drop {
		p.countDropped(op)
		return true
	}
	if releases, ok := l.isHold(xid); ok {
		p.holdRepliesArmedAt(releases)
	}
	return false
}

// forward writes frame to dst after the proxy's delay and, for a reply,
// once replies are no longer held. It reports false when the proxy closed
// or dst failed.
func (p *Proxy) forward(dst net.Conn, frame []byte, fromClient bool) bool {
	if !p.wait(time.Duration(p.delay.Load())) {
		return false
	}
	if held := p.repliesHeld(); !fromClient && held != nil {
		select {
		case <-held:
		case <-p.done:
			return false
		}
	}
	_, err := dst.Write(frame)
	return err == nil
}

// countDropped counts a swallowed reply to a request of type op (0: a
// create of DropNextCreateReply).
func (p *Proxy) countDropped(op int32) {
	p.dropped.Add(1)
	if op != 0 {
		n, _ := p.droppedBy.LoadOrStore(op, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
	}
}

// wait sleeps d; it returns false if the proxy closed meanwhile.
func (p *Proxy) wait(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-p.done:
		return false
	}
}

// forget removes a closed link from the proxy's set.
func (p *Proxy) forget(l *link) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.links, l)
}
