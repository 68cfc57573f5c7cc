package main

import (
	"errors"
	"io"
	"net"
	"sync"
)

// relay forwards one session's connections to the server, so that Crash
// can cut them as the death of the session's process would: nothing more
// reaches the server, no closeSession either, and the client's reconnects
// are refused. Sessions run through one only in leader-session-kill (the
// run script sets ZKR_BENCH_CRASHABLE), so that no other scenario pays for
// the extra hop.
type relay struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	conns []net.Conn // both ends of every forwarded connection
	dead  bool
}

func newRelay(target string) (*relay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &relay{ln: ln, target: target}
	go r.serve() // ends when crash closes the listener
	return r, nil
}

// addr is where the session dials instead of the server.
func (r *relay) addr() string { return r.ln.Addr().String() }

func (r *relay) serve() {
	for {
		client, err := r.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", r.target)
		if err != nil {
			_ = client.Close()
			continue
		}
		if !r.track(client, server) {
			continue
		}
		// Each copy ends when either side is closed.
		go forward(server, client)
		go forward(client, server)
	}
}

// track records a forwarded connection, unless the relay has crashed: then
// it closes both ends and reports false.
func (r *relay) track(client, server net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dead {
		_ = client.Close()
		_ = server.Close()
		return false
	}
	r.conns = append(r.conns, client, server)
	return true
}

func forward(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	_ = dst.Close()
	_ = src.Close()
}

// crash cuts every connection and refuses new ones, for good.
func (r *relay) crash() error {
	r.mu.Lock()
	r.dead = true
	conns := r.conns
	r.conns = nil
	r.mu.Unlock()
	err := r.ln.Close()
	for _, c := range conns {
		_ = c.Close()
	}
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}
