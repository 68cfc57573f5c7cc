package zktest

import (
	"bufio"
	"io"
	"net"
)

// tlsRecordHandshake is the first byte of a TLS connection: the type of
// the record that carries the ClientHello. No ZooKeeper packet starts
// with it: a connect request's length is far below 0x16000000.
const tlsRecordHandshake = 0x16

// startsTLS tells whether a client's connection starts a TLS handshake.
func startsTLS(r *bufio.Reader) bool {
	first, err := r.Peek(1)
	return err == nil && first[0] == tlsRecordHandshake
}

// rawChunk is the most a raw link forwards at once.
const rawChunk = 32 << 10

// pumpRaw forwards the bytes of a TLS connection one way as they come,
// until either side closes or fails. The proxy cannot read the packets
// inside, so only the faults that act on bytes apply: Cut, Pause,
// PauseRequests, PauseReplies (bytes dropped, the link cut at Resume, as
// a packet link is), SetDelay (before each chunk) and HoldReplies. The
// faults that pick packets (DropNext*, HoldRepliesFrom, SetAsideNextReply,
// Unimplement) never fire on it, and Requests and Notifications do not
// count its packets.
func (p *Proxy) pumpRaw(l *link, src io.Reader, fromClient bool) {
	dst := l.server
	if !fromClient {
		dst = l.client
	}
	buf := make([]byte, rawChunk)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if p.isPaused(fromClient) {
				l.tainted.Store(true)
			} else if !p.forwardRaw(l, dst, buf[:n], fromClient) {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// forwardRaw forwards one chunk as forward does a packet.
func (p *Proxy) forwardRaw(l *link, dst net.Conn, chunk []byte, fromClient bool) bool {
	if !fromClient {
		l.toClient.Lock()
		defer l.toClient.Unlock()
	}
	return p.forward(dst, chunk, fromClient)
}
