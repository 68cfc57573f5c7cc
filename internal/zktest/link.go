package zktest

import (
	"bufio"
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
	tainted        atomic.Bool // a packet was dropped during a pause
	closeOnce      sync.Once

	mu    sync.Mutex
	drops map[int32]bool // xids of creates whose reply is to be swallowed
	holds map[int32]bool // xids whose reply starts a HoldReplies
}

// close closes both connections, which ends both pumps.
func (l *link) close() {
	l.closeOnce.Do(func() {
		_ = l.client.Close()
		_ = l.server.Close()
	})
}

// markDrop records that the reply to xid is to be swallowed.
func (l *link) markDrop(xid int32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.drops[xid] = true
}

// markHold records that the reply to xid starts a HoldReplies.
func (l *link) markHold(xid int32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.holds[xid] = true
}

// isHold tells whether the reply to xid starts a HoldReplies.
func (l *link) isHold(xid int32) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.holds[xid]
}

// isDrop tells whether the reply to xid is to be swallowed.
func (l *link) isDrop(xid int32) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.drops[xid]
}

// acceptLoop accepts clients until Close closes the listener.
func (p *Proxy) acceptLoop() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.DialTimeout("tcp", p.target, dialTimeout)
		if err != nil {
			_ = client.Close() // the server is down: so is the proxied connection
			continue
		}
		l := &link{client: client, server: server, drops: make(map[int32]bool), holds: make(map[int32]bool)}
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
	for first := true; ; first = false {
		frame, err := readFrame(r)
		if err != nil {
			return
		}
		if p.isPaused() {
			l.tainted.Store(true)
			continue
		}
		// The first packet each way is the connect handshake, without header.
		if !first && fromClient {
			p.countRequest(frame)
		}
		if !first && fromClient && createsNode(frame) && p.takeArmed() {
			xid, _, _ := requestHeader(frame)
			l.markDrop(xid) // before the server can answer
		}
		if xid, op, ok := requestHeader(frame); !first && fromClient && ok && p.takeDropOn(op) {
			l.markDrop(xid)
		}
		if xid, op, ok := requestHeader(frame); !first && fromClient && ok && p.takeHoldOn(op) {
			l.markHold(xid)
		}
		if xid, ok := replyXid(frame); !first && !fromClient && ok && l.isDrop(xid) {
			p.dropped.Add(1)
			return // swallow the reply and cut the connection
		}
		if xid, ok := replyXid(frame); !first && !fromClient && ok && l.isHold(xid) {
			p.HoldReplies()
		}
		if !p.wait(time.Duration(p.delay.Load())) {
			return
		}
		if held := p.repliesHeld(); !fromClient && held != nil {
			select {
			case <-held:
			case <-p.done:
				return
			}
		}
		if _, err := dst.Write(frame); err != nil {
			return
		}
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
