package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// defaultServers is where zkr looks when neither --servers nor ZK_SERVERS
// says.
const defaultServers = "127.0.0.1:2181"

// connFlags are the flags of every command that talks to ZooKeeper.
type connFlags struct {
	servers        string
	sessionTimeout time.Duration
	connectTimeout time.Duration
	namespace      string
	auth           string
}

// registerConnFlags registers the common connection flags on fs.
func registerConnFlags(fs *flag.FlagSet) *connFlags {
	c := &connFlags{}
	fs.StringVar(&c.servers, "servers", "", "ZooKeeper `host:port,...` to connect to (default $ZK_SERVERS, else "+defaultServers+")")
	fs.DurationVar(&c.sessionTimeout, "session-timeout", 10*time.Second, "session timeout: how long a hold outlives a vanished zkr")
	fs.DurationVar(&c.connectTimeout, "connect-timeout", 10*time.Second, "give up with status 3 when no session is up within this `duration`")
	fs.StringVar(&c.namespace, "namespace", "", "prefix every path with this `namespace` (Curator's usingNamespace)")
	fs.StringVar(&c.auth, "auth", "", "digest credentials `user:password`, never printed")
	return c
}

// serverList returns the servers to connect to.
func (c *connFlags) serverList(e *env) []string {
	s := c.servers
	if s == "" {
		s = e.getenv("ZK_SERVERS")
	}
	if s == "" {
		s = defaultServers
	}
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// newClient returns a client that is connecting in the background; it
// checks the flags, so that bad input fails before any wait.
func (c *connFlags) newClient(e *env) (*framework.Client, error) {
	if c.sessionTimeout <= 0 || c.connectTimeout <= 0 {
		return nil, usagef("--session-timeout and --connect-timeout must be positive")
	}
	opts := []framework.Option{
		framework.WithSessionTimeout(c.sessionTimeout),
		framework.WithConnectionTimeout(c.connectTimeout),
		framework.WithLogger(slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelError}))),
	}
	if c.namespace != "" {
		opts = append(opts, framework.WithNamespace(c.namespace))
	}
	if c.auth != "" {
		if !strings.Contains(c.auth, ":") {
			return nil, usagef("--auth takes user:password")
		}
		opts = append(opts, framework.WithAuth("digest", []byte(c.auth)))
	}
	client, err := framework.New(c.serverList(e), opts...)
	if err != nil {
		return nil, err
	}
	return client, nil
}

// waitConnected waits for the client's first session, at most
// --connect-timeout.
func (c *connFlags) waitConnected(ctx context.Context, e *env, client *framework.Client) error {
	ctx, cancel := context.WithTimeout(ctx, c.connectTimeout)
	defer cancel()
	err := client.WaitConnected(ctx)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%w: no session with %s within %v", errUnreachable, strings.Join(c.serverList(e), ","), c.connectTimeout)
	default:
		return err
	}
}

// cancelOnSignal returns a context that ends with errInterrupted when zkr
// gets SIGINT or SIGTERM, and a function that stops listening; call it
// before reading e.signals elsewhere.
func cancelOnSignal(ctx context.Context, e *env) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	stopped := make(chan struct{})
	// Ends at the first signal, or when the returned function is called.
	go func() {
		defer close(stopped)
		select {
		case s := <-e.signals:
			cancel(interruption{s})
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			close(done)
			<-stopped
			cancel(nil)
		})
	}
}

// interrupted returns errInterrupted when ctx ended by a signal, else err.
func interrupted(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); errors.Is(cause, errInterrupted) {
		return cause
	}
	return err
}
