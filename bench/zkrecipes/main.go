// Command zkrecipes-bench runs the shared anchor scenarios
// (../shared/bench-anchors) on zkrecipes, so that its figures sit beside
// Curator's, Kazoo's and go-zookeeper's in one run, and the scenarios of
// the recipes beyond locks that bench/peers defines (counter.go).
package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/go-zookeeper/zk"
	"zkbench/gokit"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// session is one zkrecipes client; relay, when set, is the way to its
// server that Crash cuts.
type session struct {
	c     *framework.Client
	relay *relay
}

// lock adapts a Mutex; one per benchmark client, so the calling goroutine
// is always the owner.
type lock struct {
	m    *mutex.Mutex
	hold *mutex.Hold
}

func (l *lock) Acquire() error {
	h, err := l.m.Acquire(context.Background())
	l.hold = h
	return err
}

func (l *lock) Release() error { return l.hold.Release(context.Background()) }

func (s session) Mutex(path string) gokit.Locker {
	m, err := mutex.New(s.c, path)
	if err != nil {
		panic(err)
	}
	return &lock{m: m}
}

func (s session) Semaphore(path string, maxLeases int) gokit.Locker {
	return newSemaphore(s.c, path, maxLeases)
}

func (s session) RWLock(path string) (gokit.Locker, gokit.Locker) { return newRWLock(s.c, path) }

func (s session) Close() { _ = s.c.Close() }

func (s session) Contenders(path string) (int, error) {
	children, _, err := s.c.Children(context.Background(), path)
	if errors.Is(err, zk.ErrNoNode) {
		return 0, nil
	}
	return len(children), err
}

func connect(servers []string, timeout time.Duration) (gokit.Session, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var r *relay
	if os.Getenv("ZKR_BENCH_CRASHABLE") != "" && len(servers) == 1 {
		var err error
		if r, err = newRelay(servers[0]); err != nil {
			return nil, err
		}
		servers = []string{r.addr()}
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	c, err := framework.Connect(ctx, servers, framework.WithSessionTimeout(timeout), framework.WithLogger(quiet))
	if err != nil {
		return nil, err
	}
	return session{c: c, relay: r}, nil
}

func main() {
	if len(os.Args) > 1 && peerScenarios[os.Args[1]] != nil {
		os.Exit(runPeer(os.Args[1:]))
	}
	gokit.Main(gokit.Impl{Name: "zkrecipes", Connect: connect})
}
