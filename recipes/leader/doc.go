// Package leader is leader election on ZooKeeper, compatible with Apache
// Curator's LeaderLatch and LeaderSelector: Go and Java participants on the
// same path take part in one election and agree on who leads. It has three
// parts: the Latch, the Selector, and the Observer that reads an election
// without joining it.
//
// A Latch joins with Start: it queues a protected ephemeral-sequential
// node, path/_c_<uuid>-latch-<sequence>, with the participant id as data
// (parents are containers), and leads while its node is first in sequence
// order, the order Curator sorts by. Await returns the term of leadership,
// a Leadership: its Lost channel closes when the term ends, and Err says
// why. Close leaves; Resign gives leadership up and queues again at the
// tail. Listeners (AddListener, a function of an Event) are told IsLeader
// and NotLeader, each with its term.
//
// The latch is a queue of the library's lock engine (package mutex) under
// the lock name "latch-": it shares the engine's protected create, its
// session checks, its hand-off and the hold's loss signals, fencing token
// and guard.
//
// Guarantees:
//
//   - One leader on one timeline: a term is granted only to a node created
//     in the client's current session and first in a listing read after
//     that create (Curator's CURATOR-696 cannot happen), and every term
//     ends, its Lost channel closed, before the server can let another
//     participant lead: at a suspended connection under the default
//     framework.StandardErrorPolicy, and under either policy at the latest
//     when the session's lease runs out (see package framework), also
//     when the leader's requests no longer reach the server while its
//     notifications still arrive.
//   - A blip does not move leadership, as with Curator's latch: a term
//     that ends while its session lives (a suspension under the standard
//     policy, a lease run out) keeps its node, and so its place, and no
//     one behind it leads meanwhile. Once connected again in the same
//     session, the latch leads again with that node, in a new term, if a
//     listing read after the reconnect shows it first. A lost session, a
//     node deleted by someone else, Resign or Close give the place up.
//     Under framework.SessionErrorPolicy a suspension ends no term.
//   - A loss signal for every cause, named by Leadership.Err: an error
//     wrapping ErrLost for a suspended connection (standard policy), a
//     lease run out, a lost session, or the node deleted by someone else;
//     ErrResigned after Resign; ErrClosed after Close; the context's error
//     when the context given to Start ends.
//   - Rejoin: after a term whose place was given up (see above), or a
//     join that failed for a reason a retry may cure, the latch queues a
//     new node by itself, in the current session, for as long as it takes
//     part; it never sits in the election neither leading nor waiting
//     while its session is up.
//   - Await never lies: it never returns a term that has ended, whose node
//     is gone, or whose node belongs to a session other than the
//     client's current one. It returns on leadership, its ctx, Close, or
//     the error that made the latch leave.
//   - Listeners are called one at a time, in order: IsLeader and NotLeader
//     strictly alternate, NotLeader only after IsLeader. Leaving (Close,
//     or the end of Start's context) calls NotLeader only in Notify mode
//     (WithCloseMode), Curator's SILENT being the default.
//   - Close and Resign return once the server has acknowledged the delete
//     of the latch's node, a lost term's node included (or with the error
//     that kept it; the client then deletes it in the background). A node
//     whose create was still on the wire when Close came is deleted by the
//     client in the background, as soon as the create's answer is in. In
//     Notify mode Close returns only after the NotLeader it causes has
//     returned, as Curator's close(); called by a listener, it does not
//     wait on the listeners.
//   - Only monotonic clocks decide a term: it ends on the session's
//     lease and connection (package framework), and Stats and Healthy
//     measure on the monotonic clock, so a step of the wall clock ends no
//     term, turns no participant unhealthy and lengthens no LastTerm.
//     The wall clock shows only in Stats.Began, for display.
//   - Fencing: Leadership.FencingToken is the term's node's creation zxid,
//     which never decreases from one term to the next whoever wins them,
//     and grows whenever the leader's node changes; the terms led with
//     one node (across blips) share it, as no one led between them.
//     Leadership.Guard makes a write in a framework.Client.Multi apply
//     only while the term's node stands.
//
// A Selector (Curator's LeaderSelector) is a mutex at the path: nodes
// path/_c_<uuid>-lock-<sequence>, the participant id as data. Its function
// is given to NewSelector, as Curator's listener is; Run calls it while it
// leads, and Start does the same in the background, with Done and Err as
// the latch's. LeadershipFrom(the function's ctx) gives the term. The function's ctx is cancelled first, on Close, the end of
// Run's ctx, or a loss (a suspended connection under the standard
// policy, the lease run out, the session lost, the node deleted by
// someone else); the node, which keeps every successor out, is deleted
// only after the function returns. Past WithStopTimeout a warning names
// the path and the participant, and Close returns ErrStopTimeout rather
// than wait on. WithAutoRequeue queues again after every term, so that a
// selector whose session is up always leads or waits; after a term lost
// while its session lives (a suspension, a lease run out), it keeps its
// node as the latch does, and runs the function again in a new term once
// a listing read after the reconnect shows the node still first. A
// selector's term ends when its function has returned.
//
// An Observer (and each participant's Leader, Participants and Watch)
// reads the election as Curator's getLeader and getParticipants do,
// Java participants included, named by their ids: Leader returns
// ErrNoLeader rather than Curator's made-up participant; Watch gives
// the latest leader (id, node and fencing token) or "no leader", and
// never a node that was not first.
//
// Cost, for a latch and a selector alike: a join is at most four requests
// (the create, the listing behind it, and the watches of the node in
// front and of the participant's own node, sent together). Each waiter
// watches only the node in front of it, as Curator's latch does, so a
// departure wakes one waiter. A successor that was next in line when it
// last looked leads the moment its predecessor's deletion is notified,
// with no read: that hand-off is the leader's delete alone. A successor
// that was further back lists the queue once when the node in front of
// it goes: two requests. Participants is one
// listing and one multi-read of every node (two requests, two round
// trips; before ZooKeeper 3.6, a read per node, sent together).
//
// Not guaranteed: leading is never certain while it lasts; a process
// paused past its session timeout may still act as leader before it sees
// Lost closed. Use the guard or the fencing token where a stale leader's
// write must be refused. Curator 5.4's LeaderLatch lacks the fixes of
// CURATOR-696 and CURATOR-724: a Java participant may believe it leads
// with a node of an expired session; this package cannot prevent that.
// A selector whose
// function ignores its ctx past the lease's end keeps its node only while
// the session lives: once the server expires the session, a successor
// may lead while the function still runs (the warning of WithStopTimeout
// says so). Anyone who deletes the leader's node ends exclusion at once.
//
// Health: Stats and Healthy say what a participant has led and whether it
// believes it leads past its lease. Package leaderhttp serves Healthy to an
// HTTP probe; this package imports no net/http.
//
// Errors: the sentinels that every recipe shares live in the root package
// zkrecipes; this package re-exports those it returns under the same names
// (errors.go), so errors.Is works across the recipes.
package leader
