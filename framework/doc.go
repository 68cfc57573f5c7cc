// Package framework is the ZooKeeper client that every zkrecipes recipe
// stands on, in the manner of Apache Curator's CuratorFramework.
//
// A [Client] owns one go-zookeeper connection and the session on it. It
// turns go-zookeeper's events into Curator's connection states
// ([Connected], [Suspended], [Reconnected], [Lost], [ReadOnly]) and delivers
// every transition, in order and none dropped, to each listener. It retries
// retryable errors with a stateless [RetryPolicy], waiting for the connection
// to come back before each attempt instead of burning retries while the link
// is down. Every call that talks to the server takes a [context.Context].
//
// Guarantees:
//
//   - Lost is final for a session. When the session expires, or the client
//     has been suspended for longer than the session timeout the server
//     granted (read from the server's connect response), the client
//     abandons that session for good: it never reconnects into it, and it
//     closes the session's [Session.Lost] channel so that holders of
//     ephemeral nodes learn that their nodes are gone or about to be.
//   - Every session has a lease ([Session.LeaseDeadline]) that runs out
//     before the server can expire the session, whatever the network does.
//     The server never expires a session sooner than its granted timeout T
//     after it last heard from the client, and it answers a request only
//     after hearing it; so the client notes, on its monotonic clock, when
//     it writes each request (pings included) and, when the reply with
//     that request's xid arrives, moves the lease to send + T·(1−ε), with
//     ε the margin of [WithLeaseMargin]. Watch notifications prove
//     nothing. When the lease runs out without a newer acknowledged
//     request, the session's holds end under either [ErrorPolicy]
//     ([Session.Interrupted]), even if go-zookeeper still reports a
//     connection: in a one-way partition the client still receives
//     notifications while its requests no longer arrive. A reconnect to
//     the same session restarts the lease at its connect request under the
//     timeout granted to that connection: a server or ensemble member with
//     a lower maxSessionTimeout grants less, counts the expiry from the
//     reconnect with it, and the lease moves back to match (never is it
//     longer than the grant in force allows); replies of an older
//     connection then prove nothing. A new session starts a lease of its
//     own. Should replies resume in the same
//     session after the lease ran out, the holds already told of their
//     end stay ended, and new ones can be taken.
//   - Only the monotonic clock decides: the lease, and how long a
//     suspension has lasted before the session counts as Lost, are read
//     as time since an origin on the monotonic clock, so a step of the
//     wall clock (NTP, an operator) moves no deadline. The wall clock is
//     read only for display ([StateChange].At).
//   - A session change is never hidden. Calls made with a context bound to a
//     session ([BindSession]) fail with [ErrSessionChanged] rather than run
//     in a newer session; every write that creates nodes checks the session
//     it ran in against the one it was bound to, and what it created in
//     another one is deleted, also when its context ended first.
//   - A write whose answer was lost is never reported as not applied, and a
//     transaction ([Client.Multi]) never runs twice for it: a retry that
//     fails the way the lost run's own success would explain, or a write
//     that gives up after a lost answer, returns [ErrOutcomeUnknown] unless
//     the client can prove what happened (a transaction of protected
//     ephemerals is found by their ids, and their absence proves only
//     while the session it ran in lives). A write whose context ends while
//     its request may still reach the server says [ErrOutcomeUnknown] too,
//     one whose context ends before its request was sent (while the client
//     waits for a connection) fails with the context's error alone, and
//     one answered as its context ended returns that answer. See
//     [Client.Set], [Client.Delete], [Client.Create] and [Client.Multi].
//   - A guard ([GuardOp], which every recipe's hold offers as Guard, a
//     multi-lock's hold as Guards, one per part) makes a transaction fail
//     unless the hold's node is still there as handed out, checked by the
//     server atomically with the writes beside it; the error then wraps the
//     library's ErrLost.
//   - A protected create ([Client.CreateProtected]) returns exactly one node
//     that the caller owns, or an error and no node: the node name carries a
//     protection id, so a create whose answer was lost is found again rather
//     than repeated, and a node nobody will own (the caller gave up, or it
//     belongs to an older session) is deleted, in the background once the
//     connection is back if need be.
//   - No session is announced without the client's identity: the
//     credentials of [WithAuth] are sent on every new connection, and a
//     session is announced only once the server has accepted them all;
//     the SASL exchange of [WithSASL] runs on each connection before the
//     server's connect response is handed on.
//   - Invalid input (bad paths, bad options, calls after [Client.Close]) is
//     rejected with a typed error before anything reaches the server.
//
// Not guaranteed: the lease assumes that the client's clock runs no more
// than ε slower than the server's over a session timeout, and that the
// server that answers is the one that expires sessions: a standalone
// server, or an ensemble's leader. A follower answers pings itself and
// tells the leader of its clients only when the leader pings it (every
// half tick); cut off from the leader it goes on answering for about
// syncLimit × tickTime. Through a follower the safe deadline is
// s + T·(1−ε) − P − lag, with P the longest gap between the client's
// requests (its pings come every T/3) and lag at least
// syncLimit × tickTime + tickTime/2, which the user configures with
// [WithServerLag]; without it the client takes the answering server for
// the one that expires sessions.
// The client follows the frames of connections made by a dialer of the
// caller's own (zk.WithDialer in [WithZKOptions]) too: it wraps each one,
// so a TLS connection is wrapped from outside and read in the clear.
// [WithTLS] needs no dialer: the client runs the handshake itself, over
// its own dial or the caller's, checks the server's certificate against
// the connect string's host, and gives up with [ErrTLSHandshake] when
// every server refuses a certificate before the first session.
// A connection whose handshake gets no answer within a third of the
// session timeout is given up and another dialed, where go-zookeeper alone
// would wait 20/3 of it: ZooKeeper 3.8.0 standalone leaves a connection
// that arrives while it starts open and unanswered (ZOOKEEPER-5051), and a
// client reconnecting to a restarted server met one and lost its session.
//
// # The wire, and ZooKeeper 3.6+
//
// go-zookeeper (v1.0.4, the newest release) speaks ZooKeeper 3.4: no
// persistent watches, no multi-read, no setWatches2. The client brings
// them on go-zookeeper as it is, unpatched: its connection wrapper
// carries each request go-zookeeper cannot send inside an ordinary
// request of go-zookeeper's own. The client asks go-zookeeper for a Get
// of a reserved path under /zookeeper that names the real request; the
// wrapper writes the real request in its place under go-zookeeper's xid,
// and hands go-zookeeper back a getData reply whose data is the real
// reply. go-zookeeper keeps its single writer, its xids, deadlines, the
// order of its credentials after a reconnect and the failing of pending
// requests. The same carrier sends the reads with a watch of GetW, ExistsW
// and ChildrenW, and the wrapper takes every watch notification off the
// connection before go-zookeeper sees it: the client owns every watch
// (one-shot and persistent), dispatches each notification to all the
// watches it matches as ZooKeeper's Java client does, and sets them all
// again after a reconnect. go-zookeeper's own watcher table stays empty,
// so its reconnect never reads the zxid its receive goroutine writes (the
// data race of go-zookeeper v1.0.4 that a user's go test -race would
// otherwise hit). Writing frames of its own into the stream, linking to
// go-zookeeper's unexported functions or a second connection were
// rejected: two writers on one connection, a signature nothing checks,
// and notifications ordered only against their own connection's replies.
//
// Which server gets which path: a server that says (to the four-letter
// word srvr, asked once per server on a connection of its own) it is
// ZooKeeper 3.6 or later, or says no version, gets addWatch ([Client.Watch]),
// multiRead ([Client.MultiRead]) and setWatches2. An older server gets
// none of them, and is never sent one, because a server answers an
// unknown request with UNIMPLEMENTED and closes the connection, which
// would suspend every hold: [Client.Watch] fails with [ErrUnimplemented]
// (recipes fall back to one-shot watches), [Client.MultiRead] sends its
// reads one by one, and one-shot watches are set again with 3.4's
// setWatches. A server that hides its version and lacks a request costs
// one reconnect, once. One-shot watches are always set again with
// setWatches, which every server knows, with the last zxid the client saw:
// the server fires each whose node changed meanwhile. Persistent watches
// are set again with setWatches2, which fires nothing for them, so their
// receivers get [WatchResumed] (same session) or [WatchSessionChanged]
// and read again. The server keeps one persistent watch per path, mode
// and connection, so the client does too: a second [Client.Watch] of a
// path and mode it has costs no request, and the last one's Close leaves
// the server's watch for a second, so that a recipe of one term after
// another (a latch, a lock taken in a loop) sets it again for free
// ([Client.Watching] tells); [Hooks.CloseWatchAtOnce] removes it without
// that second, for a watch not wanted again soon. A watch is never taken
// over across a reconnect, nor before the reconnect's setWatches2 is
// answered.
//
// ZooKeeper 3.6 to 3.8 keep one watch mode per path and connection
// (ZOOKEEPER-4466): a one-shot watch set on a path replaces a persistent
// or recursive watch of that path, which would then stay open and hear
// nothing more. So a GetW, ExistsW or ChildrenW of a path whose
// persistent or recursive watch already brings the one-shot watch's
// events is not set on the server: the read goes without a watch, and
// those events fire the client's one-shot watch, in the same order
// against the replies. When that watch goes, the one-shot watches it
// served are set on the server first, in the same step. A child watch of
// a recursively watched path is set on the server (the recursive watch
// sends no NodeChildrenChanged); a recursive watch set after it displaces
// it there, and the client sets it again and fires it if the children
// changed meanwhile. A reconnect's restore sets the one-shot watches
// before the modes, and sets again after them the mode of a Watch set on
// the new connection before it. A watch of another path (an ancestor's
// recursive one) never collides. A server that says 3.9 or later keeps
// the modes apart and gets every one-shot watch.
//
// A persistent and a recursive Watch of one path would replace each
// other on 3.6 to 3.8 as well, in either order. While both are open the
// server keeps the recursive mode alone (a reconnect's restore too), and
// the persistent Watch is served from it: the events of the path itself
// as they come, and NodeChildrenChanged at each creation or deletion of
// a child of the path, which the server sends for the same change and in
// the same place. When the recursive Watch goes, the client first sets
// the persistent mode in its place, which the server does in one step.
// One difference remains: the server tells a watch of a node's creation
// or deletion only if the client may read that node (CVE-2024-23944's
// fix), so while both are open the persistent Watch does not hear the
// children change by a child the client may not read.
//
// A recipe that keeps state from a watch's events sets it with
// [Hooks.WatchFunc]: the events are handed over on the goroutine that
// reads the connection, before the replies that follow them, and each new
// connection is told first ([WatchInterrupted]), before any reply on it.
// The server sends a write's events before its answer, so once a call
// returns the state has everything before it, and a state that may have
// missed events is known so before any reply is acted on. The mutex keeps
// its queue that way and queues with a create alone.
//
// A call whose context has ended before it starts sends nothing and
// returns the context's error (wrapped), so that a caller that has given
// up never makes a node others would see even for a moment. Work that must
// finish after the caller's context has ended (a release, a clean-up) runs
// under a context of its own. go-zookeeper calls cannot be cancelled, so a
// call whose context ends while it runs returns at once while the request
// may still reach the server.
// Only protected creates and transactions of them clean up after themselves
// in that case; a conditional write or transaction says [ErrOutcomeUnknown],
// and other writes may or may not have happened.
//
// An optional namespace prefixes every path, as Curator's usingNamespace
// does; paths returned by the client are relative to it, the paths of
// [WatchEvent] included. The events of one-shot watches (GetW, ExistsW,
// ChildrenW) carry the server's full path, as go-zookeeper's did. New and Connect take the connect string Curator
// and ZooKeeper's client take ("zk1:2181,zk2:2181/app", see
// ParseConnectString): its chroot is the namespace.
//
// # A tracked ensemble
//
// By default the client follows the ensemble's configuration, as Curator's
// EnsembleTracker does: it reads /zookeeper/config (a server path that no
// namespace or chroot prefixes) with a one-shot watch of its own watch
// table, and from then on dials the client addresses of the members it
// names, so that an ensemble moved to new servers by reconfiguration keeps
// the session; the namespace stays as it was. It skips a standalone server
// (asking srvr once per server), a static configuration (no client ports),
// an unreadable or empty one (logged at warn when a reconfigured ensemble
// names no client address), one older than it follows, and one that names
// none of the addresses the client reaches the ensemble at (a proxy, NAT,
// a load balancer): then it keeps its list. [WithoutEnsembleTracking]
// turns it off; [Client.Config] lists the members for operators.
//
// # Metrics and traces
//
// An [Observer] given with [WithObserver] hears what the client and every
// recipe on it do: each try of a server call with its op and latency
// ([RequestEvent]), each retry ([RetryEvent]), each connection state with
// the session lease's margin ([StateEvent]), and from the recipes each
// acquire's start and end with its wait ([AcquireEvent]), each hold's
// start, and its end with how long it was held and why ([HoldEvent],
// [Cause]: released, or lost to a suspension, the lease, the session, a
// deletion or a maximum hold time), and each term of leadership
// ([TermEvent]). The design
// follows Curator's TracerDriver, with one method per kind of event, each
// taking one struct, so that events can grow fields, and [NoopObserver]
// to embed, so that an observer implements only what it needs and keeps
// compiling when methods are added. The recipes reach the observer
// through [Hooks.Observer] at a few shared places (the lock engine's
// acquire, the hold watch that every lock and lease uses, the term of
// leadership), not in each recipe; a multi-lock reports through its
// parts. Without an observer, reporting costs a nil check: no clock
// reading, no allocation, no interface call. The module
// github.com/zkrecipes/zkrecipes/observe/otelzk turns the events into
// OpenTelemetry metrics and spans, so that this module needs no
// OpenTelemetry itself.
//
// Each recipe logs under its own component ([Hooks.Logger]:
// component=zkrecipes/leader, zkrecipes/mutex, ...), the client under
// zkrecipes/framework. The end of a hold or a term that its holder hears
// of through its loss signal is news, not trouble, and is logged at Info;
// Warn is for what needs a look: a clean-up that failed, a grant too short
// for the configured server lag, a session given up.
package framework
