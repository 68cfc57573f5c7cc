package zktesting

import (
	"context"
	"fmt"
	"os"
	"time"
)

// restartPortWait is how long a restart waits for its own port to be
// free again (see portFreeWithin); a first start picks other ports.
const restartPortWait = 3 * time.Second

// start launches the server unless it is running and waits until it is
// ready; a server that does not become ready is stopped.
func (s *Server) start(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return fmt.Errorf("zktesting: server %s: %w", s.addr, ErrClosed)
	}
	if s.proc != nil && !s.proc.exited() {
		s.mu.Unlock()
		return nil
	}
	portWait := time.Duration(0)
	if s.started {
		portWait = restartPortWait
	}
	if err := portFreeWithin(s.addr, portWait); err != nil {
		s.mu.Unlock()
		return err
	}
	p, err := launch(s.java, s.args, s.logPath)
	if err != nil {
		s.mu.Unlock()
		return err
	}
	s.proc = p
	s.started = true
	s.mu.Unlock()

	s.log.Info("zktesting: starting", "addr", s.addr, "pid", p.pid(), "dir", s.dir)
	if err := awaitReady(ctx, s.addr, p, s.logPath, s.log); err != nil {
		_ = s.Stop()
		return err
	}
	if err := s.awaitTLSReady(ctx, p); err != nil {
		_ = s.Stop()
		return err
	}
	s.log.Info("zktesting: ready", "addr", s.addr, "pid", p.pid())
	return nil
}

// Stop stops the server: SIGTERM to its PID, then SIGKILL if it has not
// exited after 5 s. It returns once the process has exited. Stopping a
// stopped server does nothing.
func (s *Server) Stop() error {
	s.mu.Lock()
	p := s.proc
	s.proc = nil
	s.mu.Unlock()
	if p == nil {
		return nil
	}
	if err := p.stop(stopGrace); err != nil {
		return err
	}
	s.log.Info("zktesting: stopped", "addr", s.addr, "pid", p.pid())
	return nil
}

// Restart stops the server if it runs and starts it again on the same port
// with the same data, returning once it is ready. Sessions whose timeout has
// not run out in between survive, as do their ephemeral nodes, provided
// their clients reconnect in time: ZooKeeper 3.8.0 leaves a connection that
// arrives while it starts open and unanswered (ZOOKEEPER-5051), so a client
// must give such a handshake up and dial again, as framework's client does
// after a third of the session timeout; go-zookeeper alone waits 20/3 of
// it, past the session's expiry.
func (s *Server) Restart(ctx context.Context) error {
	if err := s.Stop(); err != nil {
		return err
	}
	return s.start(ctx)
}

// Close stops the server and removes its directory if Start made it (not one
// given by WithDir). Later calls do nothing; Restart after Close fails with
// ErrClosed.
func (s *Server) Close() error {
	s.mu.Lock()
	closed := s.closed
	s.closed = true
	s.mu.Unlock()
	if closed {
		return nil
	}
	err := s.Stop()
	if s.ownDir {
		if rmErr := os.RemoveAll(s.dir); rmErr != nil && err == nil {
			err = fmt.Errorf("zktesting: %w", rmErr)
		}
	}
	return err
}
