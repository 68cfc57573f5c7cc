package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
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
	servers        serversFlag
	sessionTimeout time.Duration
	connectTimeout time.Duration
	namespace      string
	auth           string
	tls            *tlsFlags
}

// registerConnFlags registers the common connection flags on fs.
func registerConnFlags(fs *flag.FlagSet) *connFlags {
	c := &connFlags{}
	fs.Var(&c.servers, "servers", "ZooKeeper `host:port,...` to connect to (default $ZK_SERVERS, else "+defaultServers+")")
	fs.DurationVar(&c.sessionTimeout, "session-timeout", 10*time.Second, "session timeout: how long a hold outlives a vanished zkr")
	fs.DurationVar(&c.connectTimeout, "connect-timeout", 10*time.Second, "give up with status 3 when no session is up within this `duration`")
	fs.StringVar(&c.namespace, "namespace", "", "prefix every path with this `namespace` (Curator's usingNamespace; \"app\" is \"/app\"; a chroot in --servers is one too)")
	fs.StringVar(&c.auth, "auth", "", "digest credentials `user:password`, never printed")
	c.tls = registerTLSFlags(fs)
	return c
}

// serversFlag is --servers; it remembers whether it was given, so that
// an empty --servers (a script's unset variable) is an error rather than
// the default server.
type serversFlag struct {
	value string
	set   bool
}

// Set takes the connect string.
func (f *serversFlag) Set(s string) error {
	f.value, f.set = s, true
	return nil
}

// String says the connect string.
func (f *serversFlag) String() string {
	if f == nil {
		return ""
	}
	return f.value
}

// connectString returns the connect string: --servers, else $ZK_SERVERS,
// else the default. A --servers that is given empty is a usage error.
func (c *connFlags) connectString(e *env) (string, error) {
	if c.servers.set {
		if strings.TrimSpace(c.servers.value) == "" {
			return "", usagef("--servers is empty: give host:port,... (leave the flag out for $ZK_SERVERS, else %s)", defaultServers)
		}
		return c.servers.value, nil
	}
	if s := e.getenv("ZK_SERVERS"); s != "" {
		return s, nil
	}
	return defaultServers, nil
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
		// "app" is "/app"; a chroot in the connect string that names
		// another fails with framework.ErrNamespaceConflict.
		opts = append(opts, framework.WithNamespace(c.namespace))
	}
	if c.auth != "" {
		if !strings.Contains(c.auth, ":") {
			return nil, usagef("--auth takes user:password")
		}
		opts = append(opts, framework.WithAuth("digest", []byte(c.auth)))
	}
	tlsConfig, err := c.tls.config()
	if err != nil {
		return nil, err
	}
	if tlsConfig != nil {
		opts = append(opts, framework.WithTLS(tlsConfig))
	}
	servers, err := c.connectString(e)
	if err != nil {
		return nil, err
	}
	// The connect string as Curator's: its chroot is the namespace.
	return framework.New([]string{servers}, opts...)
}

// connect is the connection of a command that makes its requests and
// exits: it returns a client whose first session is up, and a context that
// SIGINT or SIGTERM ends. check sees the client before any wait, so that
// bad input (a path) fails at once. done closes both.
func (c *connFlags) connect(ctx context.Context, e *env, check func(*framework.Client) error) (
	client *framework.Client, sctx context.Context, done func(), err error) {
	if client, err = c.newClient(e); err != nil {
		return nil, nil, nil, err
	}
	if err := check(client); err != nil {
		client.Close()
		return nil, nil, nil, err
	}
	sctx, stop := cancelOnSignal(ctx, e)
	done = func() {
		stop()
		client.Close()
	}
	if err := c.waitConnected(sctx, e, client, -1); err != nil {
		err = interrupted(sctx, err)
		done()
		return nil, nil, nil, err
	}
	return client, sctx, done, nil
}

// waitConnected waits for the client's first session, at most
// --connect-timeout, and at most bound if that is not negative (--timeout
// bounds the whole wait). When it runs out, the client's error says the
// servers, which of the two ran out and the last failure, once each,
// after zkr's "ZooKeeper unreachable" (status 3).
func (c *connFlags) waitConnected(ctx context.Context, e *env, client *framework.Client, bound time.Duration) error {
	limit, whose := c.connectTimeout, "--connect-timeout"
	if bound > 0 && bound < limit {
		limit, whose = bound, "--timeout"
	}
	ctx, cancel := context.WithTimeoutCause(ctx, limit, fmt.Errorf("%s (%v) ran out", whose, limit))
	defer cancel()
	if err := client.WaitConnected(ctx); err != nil {
		if errors.Is(err, framework.ErrUnreachable) {
			return unreachableErr{err}
		}
		return err
	}
	return nil
}

// cancelOnSignal returns a context that ends with errInterrupted when zkr
// gets SIGINT or SIGTERM, and a function that stops listening; call it
// before reading e.signals elsewhere.
func cancelOnSignal(ctx context.Context, e *env) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	stop := onSignals(e, func(s os.Signal) bool {
		cancel(interruption{s})
		return false
	})
	return ctx, func() {
		stop()
		cancel(nil)
	}
}

// onSignals hands each of e's signals to take, until take returns false
// or the returned function is called; once that function has returned,
// no signal is taken any more, and e.signals may be read elsewhere. The
// function may be called more than once.
func onSignals(e *env, take func(os.Signal) (more bool)) (stop func()) {
	done := make(chan struct{})
	stopped := make(chan struct{})
	// Ends when take says so, or when the returned function is called.
	go func() {
		defer close(stopped)
		for {
			select {
			case s := <-e.signals:
				if !take(s) {
					return
				}
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			<-stopped
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
