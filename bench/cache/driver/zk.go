package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"golang.org/x/sys/unix"
)

// monoNS is CLOCK_MONOTONIC in ns: the clock of Java's System.nanoTime and
// Python's time.monotonic_ns on Linux, so stamps compare across processes.
func monoNS() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic(err)
	}
	return ts.Nano()
}

// pkts reads zk_packets_received from the server's mntr. The mntr
// connection itself is counted as one packet by the server, so a delta
// between two readings is (second − first − 1).
func pkts(port int) (int64, error) {
	var lastErr error
	for try := 0; try < 3; try++ {
		n, err := pktsOnce(port)
		if err == nil {
			return n, nil
		}
		lastErr = err
		time.Sleep(200 * time.Millisecond)
	}
	return 0, lastErr
}

func pktsOnce(port int) (int64, error) {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 5*time.Second)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, "mntr"); err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == "zk_packets_received" {
			return strconv.ParseInt(f[1], 10, 64)
		}
	}
	return 0, errors.New("mntr: no zk_packets_received")
}

type stderrLogger struct{}

func (stderrLogger) Printf(format string, args ...any) { log.Printf("go-zookeeper: "+format, args...) }

// dial opens the driver's own session (go-zookeeper, not a library under
// test) and waits until it has one.
func dial(addr string, timeout time.Duration) (*zk.Conn, error) {
	conn, events, err := zk.Connect([]string{addr}, timeout, zk.WithLogger(stderrLogger{}))
	if err != nil {
		return nil, err
	}
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				go func() {
					for range events {
					}
				}()
				return conn, nil
			}
		case <-deadline:
			conn.Close()
			return nil, errors.New("no session within 30 s")
		}
	}
}

// value is a node's initial data: size bytes, printable.
func value(path string, size int) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = 'a' + byte((i+len(path))%26)
	}
	copy(b, path)
	return b
}

// treePaths lists the nodes of a fanout × children tree under root,
// parents first: root/pNNN, root/pNNN/cNNN.
func treePaths(root string, fanout, children int) (parents, leaves []string) {
	for i := 0; i < fanout; i++ {
		p := fmt.Sprintf("%s/p%03d", root, i)
		parents = append(parents, p)
		for j := 0; j < children; j++ {
			leaves = append(leaves, fmt.Sprintf("%s/c%03d", p, j))
		}
	}
	return parents, leaves
}

// leafPath is the j-th child of the i-th parent in treePaths' layout.
func leafPath(root string, i, j int) string { return fmt.Sprintf("%s/p%03d/c%03d", root, i, j) }

// populate creates root (and its parents) and a fanout × children tree of
// size-byte values under it, in multi batches of 1,000 creates, 4 batches
// in flight. An existing root is deleted first.
func populate(conn *zk.Conn, root string, fanout, children, size int) error {
	if err := deleteTree(conn, root); err != nil {
		return fmt.Errorf("clearing %s: %w", root, err)
	}
	acl := zk.WorldACL(zk.PermAll)
	parts := strings.Split(strings.TrimPrefix(root, "/"), "/")
	for i := range parts {
		p := "/" + strings.Join(parts[:i+1], "/")
		if _, err := conn.Create(p, nil, 0, acl); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("create %s: %w", p, err)
		}
	}
	parents, leaves := treePaths(root, fanout, children)
	batches := [][]string{}
	for i := 0; i < len(parents); i += 1000 {
		batches = append(batches, parents[i:min(i+1000, len(parents))])
	}
	if err := multiCreate(conn, batches, acl, size, 1); err != nil {
		return err
	}
	batches = batches[:0]
	for i := 0; i < len(leaves); i += 1000 {
		batches = append(batches, leaves[i:min(i+1000, len(leaves))])
	}
	return multiCreate(conn, batches, acl, size, 4)
}

func multiCreate(conn *zk.Conn, batches [][]string, acl []zk.ACL, size, par int) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(batches))
	sem := make(chan struct{}, par)
	for _, b := range batches {
		wg.Add(1)
		sem <- struct{}{}
		go func(b []string) {
			defer wg.Done()
			defer func() { <-sem }()
			ops := make([]any, len(b))
			for i, p := range b {
				ops[i] = &zk.CreateRequest{Path: p, Data: value(p, size), Acl: acl}
			}
			if _, err := conn.Multi(ops...); err != nil {
				errs <- fmt.Errorf("multi create under %s: %w", b[0], err)
			}
		}(b)
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// deleteTree removes p and everything below it (absent: nothing to do).
func deleteTree(conn *zk.Conn, p string) error {
	var all []string
	var walk func(string) error
	walk = func(n string) error {
		kids, _, err := conn.Children(n)
		if errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if err != nil {
			return err
		}
		all = append(all, n)
		for _, k := range kids {
			if err := walk(n + "/" + k); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(p); err != nil {
		return err
	}
	// deepest first
	sort.SliceStable(all, func(i, j int) bool { return strings.Count(all[i], "/") > strings.Count(all[j], "/") })
	for i := 0; i < len(all); i += 1000 {
		b := all[i:min(i+1000, len(all))]
		ops := make([]any, len(b))
		for k, n := range b {
			ops[k] = &zk.DeleteRequest{Path: n, Version: -1}
		}
		if _, err := conn.Multi(ops...); err != nil {
			return err
		}
	}
	return nil
}

// readAll gets every node of the tree once (children and data): a server
// warm-up, so the first implementation does not meet a cold JIT.
func readAll(conn *zk.Conn, root string) (int, error) {
	n := 0
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, 64)
	var walk func(string)
	walk = func(p string) {
		defer wg.Done()
		sem <- struct{}{}
		kids, _, err := conn.Children(p)
		if err == nil {
			_, _, err = conn.Get(p)
		}
		<-sem
		mu.Lock()
		n++
		if err != nil && firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		for _, k := range kids {
			wg.Add(1)
			go walk(p + "/" + k)
		}
	}
	wg.Add(1)
	walk(root)
	wg.Wait()
	return n, firstErr
}

var _ = os.Stderr
