package framework

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework/internal/lease"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// DefaultLeaseMargin is the session lease's margin ε for a difference in
// clock rate between the client and the server (WithLeaseMargin).
const DefaultLeaseMargin = 0.05

// Option configures a Client.
type Option func(*config) error

type config struct {
	sessionTimeout    time.Duration
	connectionTimeout time.Duration
	retry             RetryPolicy
	namespace         string
	acl               ACLProvider
	auth              []authCred
	sasl              *saslCred // WithSASL; nil: none
	logger            *slog.Logger
	zkOptions         []func(*zk.Conn)
	untracked         bool        // WithoutEnsembleTracking
	tls               *tls.Config // nil: plain TCP (WithTLS)
	leaseMargin       float64
	serverLag         time.Duration
	clock             lease.Clock // nil: the process's; a test's seam (export_test.go)
	observer          Observer    // nil: none (WithObserver)
}

type authCred struct {
	scheme string
	auth   []byte
}

func defaultConfig() config {
	return config{
		sessionTimeout:    60 * time.Second,
		connectionTimeout: 15 * time.Second,
		retry:             DefaultRetryPolicy(),
		acl:               OpenACL(),
		logger:            slog.Default(),
		leaseMargin:       DefaultLeaseMargin,
	}
}

// MinSessionTimeout is the shortest session timeout WithSessionTimeout
// takes. A server grants at least two of its ticks (4 s with ZooKeeper's
// default tickTime of 2 s) and at most twenty, and clamps what it is asked
// into that range; below MinSessionTimeout the client's own pings and
// suspension checks would run faster than any server could answer.
const MinSessionTimeout = 100 * time.Millisecond

// WithSessionTimeout sets the session timeout the client asks for. The
// server clamps it into its own range (a server as shipped grants at most
// 40 s), and the timeout it grants (Client.SessionTimeout) is how long the
// client stays Suspended before it declares the session Lost. Each
// connection of the session is granted anew: a server with a lower limit
// (an ensemble member, or a server restarted during a rolling change)
// grants less, and the session lease and the Lost timer follow the grant
// in force from that connection on, so no hold outlives the session on
// the server. A timeout below MinSessionTimeout is rejected with
// ErrInvalidOption. Default 60 s, as Curator's; a server as shipped grants
// at most 40 s, and a crashed holder's successor waits that long.
func WithSessionTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d < MinSessionTimeout {
			return fmt.Errorf("%w: session timeout %v is below the minimum %v", ErrInvalidOption, d, MinSessionTimeout)
		}
		c.sessionTimeout = d
		return nil
	}
}

// MaxLeaseMargin is the largest margin WithLeaseMargin takes: beyond it
// the lease would run out between two of the client's pings (every third
// of the session timeout) even with prompt answers.
const MaxLeaseMargin = 0.5

// WithLeaseMargin sets the session lease's margin ε: a reply to a request
// sent at s proves the session alive until s + T·(1−ε), T the granted
// session timeout (see Session.LeaseDeadline). ε covers a difference in
// clock rate between the client and the server: the lease is safe as long
// as the client's clock runs no more than ε slower than the server's over
// a session timeout. A margin outside [0, MaxLeaseMargin] is rejected with
// ErrInvalidOption. Default DefaultLeaseMargin (5 %).
func WithLeaseMargin(eps float64) Option {
	return func(c *config) error {
		if !(eps >= 0 && eps <= MaxLeaseMargin) { // also refuses NaN
			return fmt.Errorf("%w: lease margin %v is outside [0, %v]", ErrInvalidOption, eps, MaxLeaseMargin)
		}
		c.leaseMargin = eps
		return nil
	}
}

// WithServerLag sets how long a follower of the user's ensemble may go on
// answering the client after it has lost its leader, which expires
// sessions: at least syncLimit × tickTime + tickTime/2 of the ensemble. A
// follower answers pings itself and tells the leader of its clients only
// when the leader pings it, so an answer from a follower does not prove
// that the leader has heard the session. With a lag, a reply to a request
// sent at s proves the session alive until s + T·(1−ε) − P − lag, where P
// is the longest gap between the client's requests (its pings, every T/3);
// holds end at that deadline under either error policy. A standalone
// server, or an ensemble whose clients talk only to its leader, needs no
// lag. A session timeout too short for the lag (the lease would run out
// between two pings, T·(1/3 − ε) ≤ lag) fails New and Connect with
// ErrInvalidOption; a shorter timeout granted by the server is logged as
// a warning. A negative lag is rejected with ErrInvalidOption. Default 0.
func WithServerLag(lag time.Duration) Option {
	return func(c *config) error {
		if lag < 0 {
			return fmt.Errorf("%w: server lag %v is negative", ErrInvalidOption, lag)
		}
		c.serverLag = lag
		return nil
	}
}

// WithConnectionTimeout bounds how long one attempt of a call waits for the
// connection to come back before it counts as failed. Default 15 s.
func WithConnectionTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("%w: connection timeout %v must be positive", ErrInvalidOption, d)
		}
		c.connectionTimeout = d
		return nil
	}
}

// WithRetryPolicy sets the policy for retryable errors. Default
// DefaultRetryPolicy().
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *config) error {
		if p == nil {
			return fmt.Errorf("%w: nil retry policy", ErrInvalidOption)
		}
		c.retry = p
		return nil
	}
}

// WithNamespace prefixes every path with ns, Curator's usingNamespace:
// "app" and "/app" both name the namespace /app, which must be a valid
// path other than "/" (Curator's own namespaces are written without the
// slash). A connect string's chroot is a namespace too (see New). Default:
// no namespace.
func WithNamespace(ns string) Option {
	return func(c *config) error {
		if !strings.HasPrefix(ns, "/") {
			ns = "/" + ns
		}
		if err := zkpath.Validate(ns); err != nil || ns == "/" {
			return fmt.Errorf("%w: namespace %q must be a valid path other than /", ErrInvalidOption, ns)
		}
		c.namespace = ns
		return nil
	}
}

// WithACLProvider sets the ACL of every node the client creates. Default
// OpenACL().
func WithACLProvider(p ACLProvider) Option {
	return func(c *config) error {
		if p == nil {
			return fmt.Errorf("%w: nil ACL provider", ErrInvalidOption)
		}
		c.acl = p
		return nil
	}
}

// WithAuth adds credentials that the client sends on every new connection,
// for example WithAuth("digest", []byte("user:password")). The client
// announces a session (Connected, Reconnected; calls go ahead) only once
// the server has accepted every credential: one whose answer was lost
// with its connection is sent again on the next. A credential the server
// refuses (a scheme it does not know, or one its provider rejects) fails
// Connect, WaitConnected and every call waiting for a connection with an
// error wrapping ErrAuthFailed, and the client announces no session.
// Default none.
func WithAuth(scheme string, auth []byte) Option {
	return func(c *config) error {
		if scheme == "" {
			return fmt.Errorf("%w: empty auth scheme", ErrInvalidOption)
		}
		c.auth = append(c.auth, authCred{scheme: scheme, auth: auth})
		return nil
	}
}

// WithLogger sets the logger of the client, and of go-zookeeper beneath it
// (at debug level) unless WithZKOptions gives go-zookeeper a logger of its
// own. Default slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		if l == nil {
			return fmt.Errorf("%w: nil logger", ErrInvalidOption)
		}
		c.logger = l
		return nil
	}
}

// WithZKOptions passes options through to go-zookeeper's Connect, for
// example zk.WithLogInfo(false) (go-zookeeper's options are of this type
// under an unexported name). The client sets its own event callback; an
// option that replaces it breaks the client. zk.WithLogger and
// zk.WithLogInfo take effect as given. zk.WithDialer's dialer makes the
// connections (a TLS dialer, a fault injector), and the client wraps each
// one it makes, as it wraps its own: it needs to follow the bytes to keep
// the session lease and to send what go-zookeeper cannot (see the package
// doc, "The wire"). Default none.
func WithZKOptions(opts ...func(*zk.Conn)) Option {
	return func(c *config) error {
		for _, o := range opts {
			if o == nil {
				return fmt.Errorf("%w: nil go-zookeeper option", ErrInvalidOption)
			}
		}
		c.zkOptions = append(c.zkOptions, opts...)
		return nil
	}
}
