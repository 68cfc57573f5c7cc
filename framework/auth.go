package framework

import (
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// authState is how far the credentials of WithAuth have got on the
// client's go-zookeeper connection. go-zookeeper re-sends by itself, on
// each of its reconnects, the credentials whose AddAuth succeeded, and
// only those: the client sends the others again on the next connection,
// and announces the session only once the server has accepted them all.
type authState struct {
	done     bool  // every credential accepted
	sending  bool  // an AddAuth is in flight
	accepted int   // credentials accepted, in order; go-zookeeper keeps these
	refused  error // the server refused one: wraps ErrAuthFailed
}

// sendCredentials sends the credentials the server has not accepted yet,
// unless a send is under way or one was refused. Callers hold c.mu and
// have seen conn report a session.
func (c *Client) sendCredentials() {
	if c.auth.sending || c.auth.refused != nil {
		return
	}
	c.auth.sending = true
	conn, gen, from := c.conn, c.gen, c.auth.accepted
	c.wg.Add(1)
	// Ends when the server has answered every credential, or the
	// connection fails or closes.
	go func() {
		defer c.wg.Done()
		n := from
		var err error
		for ; n < len(c.cfg.auth); n++ {
			a := c.cfg.auth[n]
			if err = conn.AddAuth(a.scheme, a.auth); err != nil {
				break
			}
		}
		c.events.push(connEvent{gen: gen, authDone: true, authErr: err, accepted: n})
	}()
}

// credentialsAnswered records the end of a sendCredentials. A connection
// that failed under it leaves the rest to the next connection; a refusal
// is final. Callers hold c.mu.
func (c *Client) credentialsAnswered(e connEvent) {
	c.auth.sending = false
	c.auth.accepted = e.accepted
	switch {
	case e.authErr == nil:
		c.auth.done = true
	case refusedCredential(e.authErr):
		scheme := c.cfg.auth[e.accepted].scheme
		c.auth.refused = fmt.Errorf("%w: scheme %q: %w", ErrAuthFailed, scheme, e.authErr)
		c.log.Error("the server refused a credential; the client announces no session", "scheme", scheme, "err", e.authErr)
		closeOnce(c.authRefused)
	default:
		c.log.Debug("credentials cut off with the connection; sending them again", "err", e.authErr)
		if c.conn.State() == zk.StateHasSession {
			// The session came back while they were on their way.
			c.sendCredentials()
		}
	}
}

// refusedCredential tells a server's answer to a credential from a lost
// connection, which a later connection cures.
func refusedCredential(err error) bool {
	return !IsRetryable(err) && !errors.Is(err, zk.ErrSessionExpired)
}
