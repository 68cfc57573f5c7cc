// Package reliability is the reliability suite of zkrecipes: it has no
// code, only tests that break things on purpose and check what every
// recipe promises when they do.
//
//   - chaos_test.go: clients of a three-server ensemble, behind
//     fault-injecting proxies, loop on the lock recipes (and the Curator
//     peer joins them) while a schedule of faults runs (one-way
//     partitions and a follower cut among them, the clients allowing for
//     the ensemble's lag); nothing may be held twice, left behind or
//     leaked (see reliability/internal/chaos). The edges join them (chaos_edges_test.go): downgrades, explicit owners, multi-lease
//     acquires, a shared count's increments, TTL leases taken over with
//     Resume and fenced by a resource, a client that asks for more session
//     timeout than the server grants with go-zookeeper's info logging off.
//     A distributed atomic counter that every client increments
//     (chaos_counter_test.go) and rounds of a double barrier among them
//     (chaos_barrier_test.go) run beside them, and so do a lock-safe and a
//     transactional queue (chaos_queue_test.go): every item put is taken,
//     again only after its lock went with its session or its closing
//     failed, and the transactional one's effects are there exactly once;
//     and a Simple queue's items are taken once at most, and missing only
//     where a take's delete lost its answer.
//     A run of two minutes or more fails unless its faults bit: a hold
//     interrupted, an answer dropped, a session expired under a holder.
//     Each hold of the Curator peer is vetted as it begins: a hold whose
//     node is gone, or belongs to a session Curator 5.4 has left, is
//     stale (CURATOR-604), and a violation it takes part in is reported
//     apart as the Java side's (java_violations), not failed on.
//   - curator604_test.go: that stale hold, replayed: Curator injects its
//     own expiry while the server is down, holds with the node of the
//     session it left, and the next waiter acquires at that session's
//     expiry while Curator still holds.
//     CHAOS_DURATION
//     sets the run's length (default 2m; a run lasts until every kind of
//     fault has been injected once, longer on a busy machine),
//     CHAOS_SEED replays a schedule,
//     CHAOS_REPORT names the JSON report's file; `make chaos
//     DURATION=30m` runs it alone.
//   - oneway_test.go and follower_test.go: the session lease tells a
//     holder before the next holder acquires, in a one-way partition
//     (its requests dropped while notifications reach it) and when the
//     follower it talks to is cut off from its leader (zktesting's
//     Ensemble.Isolate; the holder's client sets WithServerLag to the
//     ensemble's ServerLag). Without the lag the follower cut may overlap
//     the holds, as the framework's doc warns: that test logs it.
//   - badinput_test.go: every exported constructor and method, given bad
//     input, returns an error errors.Is-able against a shared sentinel and
//     leaves nothing on the server.
//   - security_test.go: ACLs keep other credentials from a holder's node,
//     namespaces keep locks apart, and credentials appear in no log line
//     and no error.
//
// A recipe that lands joins the suite: an adapter in reliability/internal/chaos and a
// line in the chaos test's recipe list, rows in the bad-input table, and a
// case in the security tests.
package reliability
