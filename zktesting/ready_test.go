package zktesting

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stallFirst listens on loopback, leaves the first connection open and
// unanswered, as ZooKeeper 3.8.0 does to one that arrives while it starts
// (ZOOKEEPER-5051), and forwards the others to target. It stops when the
// test ends.
func stallFirst(t *testing.T, target string) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	keep := func(c net.Conn) {
		mu.Lock()
		defer mu.Unlock()
		conns = append(conns, c)
	}
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	// Ends when the cleanup closes the listener.
	go func() {
		defer wg.Done()
		for first := true; ; first = false {
			c, err := l.Accept()
			if err != nil {
				return
			}
			keep(c)
			if first {
				continue
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				_ = c.Close()
				continue
			}
			keep(s)
			wg.Add(2)
			// Each ends when either side closes.
			go func() { defer wg.Done(); _, _ = io.Copy(s, c); _ = s.Close() }()
			go func() { defer wg.Done(); _, _ = io.Copy(c, s); _ = c.Close() }()
		}
	}()
	return l.Addr().String()
}

// A readiness probe that meets a connection the server leaves unanswered
// gives it up soon and tries again, instead of holding the start up for
// the whole probe timeout: under load, most starts met one.
func TestAwaitReady_AnUnansweredProbeHoldsTheStartUpBriefly(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs a ZooKeeper server")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Start(ctx)
	require.NoError(t, err)
	defer s.Close()
	p, err := launch("sleep", []string{"60"}, s.logPath)
	require.NoError(t, err)
	defer func() { _ = p.stop(0) }()

	began := time.Now()
	require.NoError(t, awaitReady(ctx, stallFirst(t, s.Addr()), p, s.logPath, discard()))
	assert.Less(t, time.Since(began), probeTimeout, "the unanswered probe was given up before the probe timeout")
}
