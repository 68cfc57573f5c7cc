package framework

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"unicode"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/framework/internal/wire"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// Sentinel errors of the framework. Server errors are not re-declared: a
// failed call wraps go-zookeeper's sentinel, so errors.Is(err, zk.ErrNoNode)
// works on every error the client returns.
var (
	// ErrClosed is returned by every call made after Close, and by the
	// watches and waits that Close ends. It is the library's shared
	// sentinel, zkrecipes.ErrClosed, which the recipes re-export: a
	// recipe's call on a closed client matches them all.
	ErrClosed = zkrecipes.ErrClosed
	// ErrInvalidPath is returned for a path that ZooKeeper would reject.
	ErrInvalidPath = zkpath.ErrInvalidPath
	// ErrInvalidOption is returned by New for an option with a bad value.
	// It is ErrInvalidArgument, the library's one sentinel for bad input,
	// under the name it had before: errors.Is matches either.
	ErrInvalidOption = zkrecipes.ErrInvalidArgument
	// ErrNoServers is returned by New for an empty server list.
	ErrNoServers = errors.New("framework: no servers given")
	// ErrInvalidAddress is returned by New and ParseConnectString for a
	// server address that is not host or host:port with a port from 1 to
	// 65535, a connect string without a server, or a bad chroot, and by
	// New when no server's name resolves; the error names the address and
	// the cause.
	ErrInvalidAddress = errors.New("framework: invalid server address")
	// ErrNamespaceConflict is returned by New when the connect string has
	// a chroot and WithNamespace names another namespace: the client has
	// one. It wraps ErrInvalidOption.
	ErrNamespaceConflict = fmt.Errorf("%w: the connect string's chroot and the namespace differ", ErrInvalidOption)
	// ErrSessionChanged is returned by a call bound to a session (see
	// BindSession) when the client is now in another session: ephemeral
	// nodes of the old session are gone.
	ErrSessionChanged = zkrecipes.ErrSessionChanged
	// ErrRetriesExhausted is returned by Hooks.RetryWait when the retry
	// policy allows no more tries.
	ErrRetriesExhausted = errors.New("framework: retries exhausted")
	// ErrAuthFailed is returned by Connect and WaitConnected, and wrapped
	// by ConnectionError, when the server refuses a credential of WithAuth
	// (an unknown scheme, or one its provider rejects) or the SASL exchange
	// of WithSASL (a wrong password, an unknown user). The error names the
	// scheme or the SASL user and wraps go-zookeeper's zk.ErrAuthFailed
	// when the server said AUTHFAILED. The client then announces no
	// session: it would run without its identity, and every call that
	// waits for a connection fails with it too. After a SASL refusal the
	// client dials no more.
	ErrAuthFailed = errors.New("framework: credentials refused by the server")
	// ErrTLSHandshake is returned by Connect and WaitConnected, and wrapped
	// by ConnectionError, when every server refused the TLS handshake of a
	// client of WithTLS before its first session: a certificate that one
	// side would not accept (the server's not signed by a CA of the
	// config, or not naming the host; the client's refused by the
	// server), or a version or cipher suite the other does not speak. The
	// error names the address and the server name checked, and wraps the
	// cause (x509.UnknownAuthorityError, x509.HostnameError, the server's
	// alert). The client then dials no more; see WithTLS.
	ErrTLSHandshake = errors.New("framework: TLS handshake refused")
	// ErrUnreachable is returned by Connect when no session was made
	// before its deadline: the error says whose deadline it was (the
	// caller's context or the connection timeout) and wraps the context's
	// error and the last failure to reach a server. It is the library's
	// shared sentinel, which timed acquires return too.
	ErrUnreachable = zkrecipes.ErrUnreachable
	// ErrOutcomeUnknown is returned by a conditional write whose answer was
	// lost when the client cannot prove whether the server applied it; see
	// Client.Set. It is not retryable.
	ErrOutcomeUnknown = zkrecipes.ErrOutcomeUnknown
	// ErrInvalidArgument is returned for an argument out of its range (a
	// watch mode, a read op); it is the library's shared sentinel.
	ErrInvalidArgument = zkrecipes.ErrInvalidArgument
	// ErrNotConnected is the retryable failure of an attempt that found no
	// connection within the connection timeout.
	ErrNotConnected = errors.New("framework: not connected within the connection timeout")
	// ErrInvalidEnsembleConfig is returned by Client.Config when the data
	// of /zookeeper/config cannot be read as an ensemble's configuration.
	ErrInvalidEnsembleConfig = errors.New("framework: invalid ensemble configuration")
	// ErrTooLarge is returned, before anything is sent, for a request whose
	// path and data exceed MaxRequestSize. It is also an ErrInvalidArgument
	// of package zkrecipes.
	ErrTooLarge = fmt.Errorf("framework: request too large for the server (path and data over %d bytes): %w",
		MaxRequestSize, zkrecipes.ErrInvalidArgument)
	// ErrCarrierMissing is the error of a request the carrier could not
	// send because the connection is not wrapped by the client: the
	// reserved path reached the server. It is a defect, not a condition of
	// the server.
	ErrCarrierMissing = wire.ErrCarrierMissing
	// ErrUnimplemented is the error of a request the server does not know
	// (ZooKeeper's UNIMPLEMENTED): addWatch, multiRead and setWatches2 need
	// ZooKeeper 3.6 or later. The client learns what each server
	// implements once and fails such a request at once, without sending
	// it, where the server lacks it.
	ErrUnimplemented = wire.ErrUnimplemented
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
	if e.Path == "" {
		return fmt.Sprintf("framework: %s: %v", e.Op, e.Err) // a multi names no one path
	}
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
// was lost (a request's write failing on it included) or not there, or
// the session moved to another server. Session
// expiry is not retryable: ephemeral nodes died with the session, and the
// caller has to decide what that means. Nor is ErrOutcomeUnknown, which
// wraps the connection's failure: sending the write again could apply it
// twice.
func IsRetryable(err error) bool {
	switch {
	case err == nil, errors.Is(err, ErrOutcomeUnknown):
		return false
	case errors.Is(err, zk.ErrConnectionClosed),
		errors.Is(err, zk.ErrNoServer),
		errors.Is(err, zk.ErrSessionMoved),
		errors.Is(err, zk.ErrClosing),
		errors.Is(err, ErrNotConnected):
		return true
	}
	// go-zookeeper gives a request the error of its own failed write
	// (the peer cut the connection, or the write timed out) as it is:
	// the connection is lost, as with ErrConnectionClosed.
	var ne *net.OpError
	return errors.As(err, &ne)
}
