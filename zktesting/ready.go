package zktesting

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
)

const (
	// defaultStartTimeout bounds a start when ctx has no deadline.
	defaultStartTimeout = 60 * time.Second
	// probeInterval is the pause between two readiness probes.
	probeInterval = 50 * time.Millisecond
	// probeTimeout bounds one readiness probe; the first get less (see
	// probeOnce).
	probeTimeout = 3 * time.Second
	// firstProbeTimeout bounds the first readiness probe; each probe that
	// runs out of time doubles the bound of the next, up to probeTimeout.
	firstProbeTimeout = 250 * time.Millisecond
	// probeSessionTimeout is the session timeout the readiness probe asks for.
	probeSessionTimeout = 4 * time.Second
)

// awaitReady returns once the server at addr answers ruok with imok, serves
// mntr and gives a client a session; it fails early when the process exits.
func awaitReady(ctx context.Context, addr string, p *process, logPath string, log *slog.Logger) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultStartTimeout)
		defer cancel()
	}
	ticker := time.NewTicker(probeInterval)
	defer ticker.Stop()
	bound := firstProbeTimeout
	for {
		timedOut, err := probeOnce(ctx, addr, bound, log)
		if timedOut {
			bound = min(2*bound, probeTimeout)
		}
		if err == nil && p.exited() {
			// Whoever answered, it was not this process.
			err = fmt.Errorf("answered after pid %d exited", p.pid())
		} else if err == nil {
			return nil
		}
		select {
		case <-p.done:
			tail := logTail(logPath, 30)
			if strings.Contains(tail, "java.net.BindException") {
				// A port picked free was taken before the server bound it.
				return fmt.Errorf("%w (%w): pid %d on %s: %v; log tail:\n%s", ErrExited, ErrPortInUse, p.pid(), addr, p.err, tail)
			}
			return fmt.Errorf("%w: pid %d on %s: %v; log tail:\n%s", ErrExited, p.pid(), addr, p.err, tail)
		case <-ctx.Done():
			return fmt.Errorf("%w: %s: %w (last probe: %v); log tail:\n%s", ErrNotReady, addr, ctx.Err(), err, logTail(logPath, 30))
		case <-ticker.C:
		}
	}
}

// probeOnce checks that the server at addr is ready, within bound, and
// tells whether it ran out of time.
//
// The bound matters: ZooKeeper 3.8.0 standalone leaves a connection that
// arrives while it starts open and unanswered forever (closing it throws a
// NullPointerException before the socket is closed: ZOOKEEPER-5051), so a
// probe must give up and try again on a new connection. A short bound
// first, since under load most starts met such a connection and each cost
// the start a whole probeTimeout; a longer one after each time out, for a
// server that is only slow to answer.
func probeOnce(ctx context.Context, addr string, bound time.Duration, log *slog.Logger) (timedOut bool, err error) {
	pctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	err = probe(pctx, addr, log)
	return err != nil && pctx.Err() != nil && ctx.Err() == nil, err
}

// probe checks once that the server at addr is ready.
func probe(ctx context.Context, addr string, log *slog.Logger) error {
	answer, err := FourLetterWord(ctx, addr, "ruok")
	if err != nil {
		return err
	}
	if strings.TrimSpace(answer) != "imok" {
		return fmt.Errorf("ruok answered %q", answer)
	}
	// ruok answers before the server serves; mntr has no stats until it
	// does. Checking it first spares the session probe go-zookeeper's 1 s
	// back-off after a refused session.
	if _, err := Mntr(ctx, addr); err != nil {
		return err
	}
	return probeSession(ctx, addr, log, nil)
}

// probeSession opens a session on the server at addr, over dial (nil:
// plain TCP), and closes it.
func probeSession(ctx context.Context, addr string, log *slog.Logger, dial zk.Dialer) error {
	if dial == nil {
		dial = net.DialTimeout
	}
	conn, events, err := zk.Connect([]string{addr}, probeSessionTimeout, zk.WithDialer(dial),
		zk.WithLogger(zkLogger{log}), zk.WithLogInfo(false))
	if err != nil {
		return err
	}
	defer conn.Close()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return errors.New("connection closed")
			}
			if ev.State == zk.StateHasSession {
				return nil
			}
		case <-ctx.Done():
			return fmt.Errorf("no session: %w", ctx.Err())
		}
	}
}

// zkLogger passes go-zookeeper's messages to slog at debug level.
type zkLogger struct{ log *slog.Logger }

// Printf logs one go-zookeeper message.
func (l zkLogger) Printf(format string, args ...any) {
	l.log.Debug(fmt.Sprintf("zktesting: go-zookeeper: "+format, args...))
}
