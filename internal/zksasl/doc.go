// Package zksasl implements ZooKeeper's SASL authentication, client side,
// with the DIGEST-MD5 mechanism and qop auth (what Kafka's ZooKeeper
// setups use without Kerberos), on go-zookeeper as it is, which speaks no
// SASL. framework.WithSASL is its public face; the framework layers its
// Dialer between the base dialer (the caller's, or the default) and its
// own connection wrapper, so the exchange runs inside whatever connection
// the base dialer returns, a TLS one too.
//
// ZooKeeper's Java client authenticates by SASL right after the session
// handshake: it sends sasl requests (opcode 102, a token each) and reads
// the server's tokens until the mechanism completes; the server then adds
// the identity sasl:<user> to the connection, which ACLs of the sasl scheme
// name. The server forgets it with the connection, so every connection,
// a reconnect to the same session too, authenticates again.
//
// Dialer carries the exchange below the framework's connection wrapper,
// inside the connection a dialer returns: the first Read of a connection,
// which go-zookeeper makes to read the connect response, reads that
// response itself, runs the exchange on the connection, and only then
// hands the response on. go-zookeeper is then blocked in that Read and
// writes nothing else until it has the response, so the exchange has the
// connection to itself: one writer at a time, no xid of go-zookeeper's in
// flight, nothing queued behind it, and the read deadline go-zookeeper
// (bounded by the framework) set for the connect response bounds the
// exchange too. Neither go-zookeeper nor the framework sees a SASL frame,
// and a session is announced only once the exchange has succeeded on its
// connection. A failed exchange fails the connection. One that failed for
// good (the server refused it: ErrAuthFailed) is reported to the dialer's
// caller too, which the framework uses to stop connecting and to say why;
// one whose connection was lost midway is not, and go-zookeeper connects
// again.
//
// Not supported: Kerberos (GSSAPI) and the other mechanisms, and
// DIGEST-MD5's integrity and confidentiality layers (qop auth-int and
// auth-conf): a server that offers only those is refused (ErrAuthFailed).
// TLS is the way to protect the connection.
package zksasl
