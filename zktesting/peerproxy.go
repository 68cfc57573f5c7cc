package zktesting

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// peerProxy forwards the connections one ensemble member opens to another
// member's quorum or election port, so that the link between the two can
// be cut as a network partition cuts it: silently. While cut, it keeps
// every connection open and drops what either side sends, and accepts new
// connections only to drop what they send, so that the servers notice the
// partition by their own timeouts (syncLimit), not by a closed socket.
type peerProxy struct {
	ln     net.Listener
	target string
	// advertise, for an election link, replaces the address in the
	// connecting member's initial message: the receiving member dials a
	// member with a lower id back on that address, which must be the proxy
	// of the reverse link rather than the member's own port.
	advertise string

	mu     sync.Mutex
	cut    bool
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// listenPeerProxy listens on a free loopback port, to forward to target
// once started.
func listenPeerProxy(target string) (*peerProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("zktesting: peer proxy: %w", err)
	}
	return &peerProxy{ln: ln, target: target, conns: make(map[net.Conn]struct{})}, nil
}

// start accepts connections, with advertise set (or not) for good.
func (p *peerProxy) start() {
	p.wg.Add(1)
	// Ends when close closes the listener.
	go p.acceptLoop()
}

// port returns the port the proxy listens on.
func (p *peerProxy) port() int { return p.ln.Addr().(*net.TCPAddr).Port }

// setCut starts or ends the partition. Ending it closes every connection,
// since those that lost bytes no longer carry a consistent stream; the
// members connect again.
func (p *peerProxy) setCut(cut bool) {
	p.mu.Lock()
	p.cut = cut
	var stale []net.Conn
	if !cut {
		for c := range p.conns {
			stale = append(stale, c)
		}
	}
	p.mu.Unlock()
	for _, c := range stale {
		_ = c.Close()
	}
}

// isCut tells whether the link is cut.
func (p *peerProxy) isCut() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cut
}

// track records an open connection; it reports false after close.
func (p *peerProxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

// untrack closes and forgets a connection.
func (p *peerProxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	_ = c.Close()
}

// acceptLoop accepts until close closes the listener.
func (p *peerProxy) acceptLoop() {
	defer p.wg.Done()
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(in) {
			_ = in.Close()
			return
		}
		p.wg.Add(1)
		// Ends when either side of the connection closes.
		go p.serve(in)
	}
}

// serve forwards one connection. A connection that arrives during a cut
// is never forwarded: it is drained until the cut ends, as a SYN answered
// by a partitioned network would be.
func (p *peerProxy) serve(in net.Conn) {
	defer p.wg.Done()
	defer p.untrack(in)
	if p.isCut() {
		_, _ = io.Copy(io.Discard, in)
		return
	}
	out, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		return
	}
	if !p.track(out) {
		_ = out.Close()
		return
	}
	defer p.untrack(out)
	if p.advertise != "" {
		if err := rewriteInitialMessage(in, cutWriter{p, out}, p.advertise); err != nil {
			return
		}
	}
	done := make(chan struct{})
	// Ends when out or in closes (untrack on either side closes both ends'
	// copies through the deferred closes).
	go func() {
		defer close(done)
		p.copy(in, out)
		_ = in.Close()
	}()
	p.copy(out, in)
	_ = out.Close()
	<-done
}

// copy forwards src to dst until either fails, dropping what arrives
// while the link is cut.
func (p *peerProxy) copy(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.isCut() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// cutWriter writes to a connection of p, or drops what it is given while
// the link is cut.
type cutWriter struct {
	p   *peerProxy
	dst io.Writer
}

func (w cutWriter) Write(b []byte) (int, error) {
	if w.p.isCut() {
		return len(b), nil
	}
	return w.dst.Write(b)
}

// close stops the proxy and closes every connection.
func (p *peerProxy) close() {
	p.mu.Lock()
	p.closed = true
	conns := make([]net.Conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	_ = p.ln.Close()
	for _, c := range conns {
		_ = c.Close()
	}
	p.wg.Wait()
}

// Election protocol versions whose initial message carries an address.
const (
	electionProtocolV1 = -65536
	electionProtocolV2 = -65535
	maxInitialAddrLen  = 4096
)

// rewriteInitialMessage copies the initial message of an election
// connection (protocol version, server id, then the length and text of the
// connecting member's election address) from in to out, with addr instead
// of the address. A message of the old protocol, without an address, is
// copied as is.
func rewriteInitialMessage(in io.Reader, out io.Writer, addr string) error {
	var head [16]byte
	if _, err := io.ReadFull(in, head[:]); err != nil {
		return err
	}
	version := int64(binary.BigEndian.Uint64(head[:8]))
	if version != electionProtocolV1 && version != electionProtocolV2 {
		_, err := out.Write(head[:])
		return err
	}
	var n [4]byte
	if _, err := io.ReadFull(in, n[:]); err != nil {
		return err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > maxInitialAddrLen {
		return fmt.Errorf("zktesting: initial election message of %d bytes", size)
	}
	if _, err := io.CopyN(io.Discard, in, int64(size)); err != nil {
		return err
	}
	msg := make([]byte, 0, 20+len(addr))
	msg = append(msg, head[:]...)
	msg = binary.BigEndian.AppendUint32(msg, uint32(len(addr)))
	msg = append(msg, addr...)
	_, err := out.Write(msg)
	return err
}
