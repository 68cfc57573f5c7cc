package framework

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// Sentinel errors of the framework. Server errors are not re-declared: a
// failed call wraps go-zookeeper's sentinel, so errors.Is(err, zk.ErrNoNode)
// works on every error the client returns.
var (
	// ErrClosed is returned by every call made after Close.
	ErrClosed = errors.New("framework: client is closed")
	// ErrInvalidPath is returned for a path that ZooKeeper would reject.
	ErrInvalidPath = zkpath.ErrInvalidPath
	// ErrInvalidOption is returned by New for an option with a bad value.
	ErrInvalidOption = errors.New("framework: invalid option")
	// ErrNoServers is returned by New for an empty server list.
	ErrNoServers = errors.New("framework: no servers given")
	// ErrInvalidAddress is returned by New for a server address that is not
	// host or host:port with a port from 1 to 65535 (a chroot suffix
	// included: use WithNamespace), or when no server's name resolves; the
	// error names the address and the cause.
	ErrInvalidAddress = errors.New("framework: invalid server address")
	// ErrSessionChanged is returned by a call bound to a session (see
	// BindSession) when the client is now in another session: ephemeral
	// nodes of the old session are gone.
	ErrSessionChanged = zkrecipes.ErrSessionChanged
	// ErrRetriesExhausted is returned by Hooks.RetryWait when the retry
	// policy allows no more tries.
	ErrRetriesExhausted = errors.New("framework: retries exhausted")
	// ErrNotConnected is the retryable failure of an attempt that found no
	// connection within the connection timeout.
	ErrNotConnected = errors.New("framework: not connected within the connection timeout")
)

// OpError is the error of a failed server call. It names the operation and
// the path (relative to the namespace) and wraps the cause.
type OpError struct {
	Op   string
	Path string
	Err  error
}

// Error implements error.
func (e *OpError) Error() string {
	return fmt.Sprintf("framework: %s %s: %v", e.Op, printablePath(e.Path), e.Err)
}

// printablePath quotes a path that holds characters a log line should not
// carry raw (a newline, a NUL), and cuts one too long to print whole.
func printablePath(p string) string {
	const most = 200
	if len(p) > most {
		p = p[:most] + "..."
	}
	if strings.ContainsFunc(p, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return strconv.Quote(p)
	}
	return p
}

// Unwrap returns the cause.
func (e *OpError) Unwrap() error { return e.Err }

func opError(op, path string, err error) error {
	var oe *OpError
	if errors.As(err, &oe) {
		return err
	}
	return &OpError{Op: op, Path: path, Err: err}
}

// IsRetryable reports whether err is one a retry may cure: the connection
// was lost or not there, or the session moved to another server. Session
// expiry is not retryable: ephemeral nodes died with the session, and the
// caller has to decide what that means.
func IsRetryable(err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, zk.ErrConnectionClosed),
		errors.Is(err, zk.ErrNoServer),
		errors.Is(err, zk.ErrSessionMoved),
		errors.Is(err, zk.ErrClosing),
		errors.Is(err, ErrNotConnected):
		return true
	}
	return false
}
