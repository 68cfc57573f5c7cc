package framework

import (
	"fmt"
	"net"
	"time"
	"unicode/utf8"

	"github.com/zkrecipes/zkrecipes/framework/internal/wire"
	"github.com/zkrecipes/zkrecipes/internal/zksasl"
)

// saslCred is the identity of WithSASL.
type saslCred struct {
	user, password string
}

// WithSASL authenticates every connection of the client as user by SASL
// DIGEST-MD5 (qop auth), as ZooKeeper's Java client does with a JAAS
// Client section of DigestLoginModule: the server then gives the
// connection the identity sasl:<user>, which ACLs of the sasl scheme name
// (zk.ACL{Scheme: "sasl", ID: user}). The exchange runs on each new
// connection, a reconnect to the same session too, inside the connection
// the base dialer returns (the default dial, a dialer of WithZKOptions,
// or a TLS one), before the session is announced: the first call made on
// Connected already runs as user.
//
// A server that refuses the exchange (a wrong password, an unknown user,
// a server without SASL configured) fails Connect and WaitConnected with
// an error wrapping ErrAuthFailed, and so does every call waiting for a
// connection; ConnectionError says so too. The refusal is final: the
// client dials no more until it is closed. A connection lost during the
// exchange is not a refusal, and the client connects again.
//
// Kerberos (GSSAPI) and DIGEST-MD5's integrity and confidentiality layers
// are not supported: protect the connection with TLS. An empty user, or a
// user or password that is not UTF-8, is rejected with ErrInvalidOption,
// and so is a second WithSASL: a connection has one SASL identity. It
// goes with WithAuth, whose credentials are sent after the exchange.
// Default none.
func WithSASL(user, password string) Option {
	return func(c *config) error {
		switch {
		case user == "":
			return fmt.Errorf("%w: empty SASL user", ErrInvalidOption)
		case !utf8.ValidString(user) || !utf8.ValidString(password):
			return fmt.Errorf("%w: SASL user and password must be UTF-8", ErrInvalidOption)
		case c.sasl != nil:
			return fmt.Errorf("%w: a second SASL identity (%q after %q): a connection has one", ErrInvalidOption, user, c.sasl.user)
		}
		c.sasl = &saslCred{user: user, password: password}
		return nil
	}
}

// saslDialer layers the SASL exchange of WithSASL on base (the default
// dial when nil), below the client's connection wrapper; without WithSASL
// it is base. Once the server has refused the exchange, a dial dials no
// more: it waits for the client's Close, which keeps go-zookeeper from
// trying again and again.
func (c *Client) saslDialer(base wire.DialFunc) wire.DialFunc {
	cred := c.cfg.sasl
	if cred == nil {
		return base
	}
	dial := zksasl.Dialer(base, cred.user, cred.password, c.saslRefused)
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		select {
		case <-c.authRefused:
			<-c.life.Done()
			return nil, ErrClosed
		default:
		}
		return dial(network, address, timeout)
	}
}

// saslRefused records the server's refusal of the SASL exchange, which
// fails WaitConnected and every call waiting for a connection. It is
// called on go-zookeeper's connecting goroutine, before go-zookeeper
// learns that the connection failed and dials again.
func (c *Client) saslRefused(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.auth.refused != nil {
		return
	}
	c.auth.refused = fmt.Errorf("%w: %w", ErrAuthFailed, err)
	c.log.Error("the server refused the SASL authentication; the client connects no more", "user", c.cfg.sasl.user, "err", err)
	closeOnce(c.authRefused)
}
