// Command cutproxy forwards TCP connections from a 127.0.0.1 port to a
// ZooKeeper server and can cut them: all forwarded connections are closed
// and new ones refused (the listening socket is closed) until it is told
// to open again. Used by the cache-reconnect scenario of bench/cache.
//
//	cutproxy -target 127.0.0.1:22182 [-listen 127.0.0.1:0]
//
// It prints "LISTEN host:port" once listening, then reads control lines on
// stdin, answering each on stdout (times are CLOCK_MONOTONIC ns, the clock
// of Java's System.nanoTime and Python's time.monotonic_ns):
//
//	cut       close every forwarded connection, stop listening -> "CUT <ns>"
//	cut N     as cut, then open again by itself after N seconds -> "CUT <ns>", later "OPEN <ns>"
//	open      listen again on the same address                  -> "OPEN <ns>"
//	conns     number of live forwarded connections              -> "CONNS <n>"
//
// SIGUSR1 cuts and SIGUSR2 opens, for use without a stdin pipe. EOF on
// stdin or SIGTERM ends the proxy.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func monoNS() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic(err)
	}
	return ts.Nano()
}

type proxy struct {
	addr, target string

	mu    sync.Mutex
	out   *bufio.Writer
	ln    net.Listener // nil while cut
	conns map[net.Conn]struct{}
	gen   int // bumped by every cut, so a stale timer does not re-open
}

func (p *proxy) say(format string, args ...any) {
	fmt.Fprintf(p.out, format+"\n", args...)
	p.out.Flush()
}

// listen opens the listener; p.mu held.
func (p *proxy) listen() error {
	if p.ln != nil {
		return nil
	}
	var err error
	for i := 0; i < 50; i++ { // the port may linger briefly after a close
		var ln net.Listener
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			p.ln = ln
			p.addr = ln.Addr().String()
			go p.serve(ln)
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return err
}

func (p *proxy) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go p.forward(ln, c)
	}
}

func (p *proxy) forward(ln net.Listener, client net.Conn) {
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = client.Close()
		return
	}
	p.mu.Lock()
	if p.ln != ln { // cut while dialling
		p.mu.Unlock()
		_ = client.Close()
		_ = server.Close()
		return
	}
	p.conns[client] = struct{}{}
	p.conns[server] = struct{}{}
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		_ = dst.Close()
		_ = src.Close()
		done <- struct{}{}
	}
	go pipe(server, client)
	go pipe(client, server)
	<-done
	<-done
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, server)
	p.mu.Unlock()
}

func (p *proxy) cut(reopenAfter time.Duration) {
	p.mu.Lock()
	if p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // RST: the peer sees the cut at once
		}
		_ = c.Close()
	}
	p.gen++
	gen := p.gen
	p.say("CUT %d", monoNS())
	p.mu.Unlock()
	if reopenAfter > 0 {
		time.AfterFunc(reopenAfter, func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.gen == gen {
				p.openLocked()
			}
		})
	}
}

func (p *proxy) openLocked() {
	if err := p.listen(); err != nil {
		p.say("ERROR %v", err)
		return
	}
	p.say("OPEN %d", monoNS())
}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on (127.0.0.1 only)")
	target := flag.String("target", "127.0.0.1:22182", "server to forward to")
	flag.Parse()
	if h, _, err := net.SplitHostPort(*listen); err != nil || h != "127.0.0.1" {
		fmt.Fprintln(os.Stderr, "cutproxy: -listen must be 127.0.0.1:PORT")
		os.Exit(2)
	}
	p := &proxy{addr: *listen, target: *target, out: bufio.NewWriter(os.Stdout), conns: map[net.Conn]struct{}{}}
	p.mu.Lock()
	if err := p.listen(); err != nil {
		fmt.Fprintln(os.Stderr, "cutproxy:", err)
		os.Exit(1)
	}
	p.say("LISTEN %s", p.addr)
	p.mu.Unlock()

	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		for s := range sig {
			switch s {
			case syscall.SIGUSR1:
				p.cut(0)
			case syscall.SIGUSR2:
				p.mu.Lock()
				p.openLocked()
				p.mu.Unlock()
			default:
				os.Exit(0)
			}
		}
	}()

	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		f := strings.Fields(in.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "cut":
			var d time.Duration
			if len(f) > 1 {
				s, err := strconv.ParseFloat(f[1], 64)
				if err != nil {
					p.mu.Lock()
					p.say("ERROR bad seconds %q", f[1])
					p.mu.Unlock()
					continue
				}
				d = time.Duration(s * float64(time.Second))
			}
			p.cut(d)
		case "open":
			p.mu.Lock()
			p.openLocked()
			p.mu.Unlock()
		case "conns":
			p.mu.Lock()
			p.say("CONNS %d", len(p.conns)/2)
			p.mu.Unlock()
		default:
			p.mu.Lock()
			p.say("ERROR unknown command %q", f[0])
			p.mu.Unlock()
		}
	}
}
