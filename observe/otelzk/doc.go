// Package otelzk reports what a zkrecipes client and its recipes do to
// OpenTelemetry: an [Observer] for framework.WithObserver that records
// metrics, and spans for acquires and terms of leadership. It is a module
// of its own, so that a program that does not use OpenTelemetry gets none
// of it through zkrecipes.
//
// Metrics (seconds for durations; attribute keys in parentheses):
//
//	zookeeper.client.request.duration   histogram  each try of a server call (zookeeper.operation, error.type)
//	zkrecipes.client.retries            counter    retries of a call (zookeeper.operation)
//	zkrecipes.client.state.changes      counter    connection states (zkrecipes.connection.state)
//	zkrecipes.client.reconnects         counter    Reconnected states (zkrecipes.session.new)
//	zkrecipes.client.connection.count   up-down    clients in each connection state now, read at collection (zkrecipes.connection.state)
//	zkrecipes.session.lease.margin      gauge      time left on each client's session lease, read at collection
//	zkrecipes.lock.wait.duration        histogram  acquires, start to grant or failure (zkrecipes.recipe, zkrecipes.acquire.outcome)
//	zkrecipes.lock.wait.count           up-down    acquires under way (zkrecipes.recipe)
//	zkrecipes.lock.hold.duration        histogram  holds, start to end (zkrecipes.recipe, zkrecipes.hold.cause)
//	zkrecipes.lock.hold.count           up-down    holds held now: lock holds, leases, leaders' nodes (zkrecipes.recipe)
//	zkrecipes.lock.losses               counter    holds lost (zkrecipes.recipe, zkrecipes.hold.cause)
//	zkrecipes.leader.term.duration      histogram  terms of leadership (zkrecipes.hold.cause)
//	zkrecipes.leader.term.count         up-down    terms under way
//
// What is under way or held now is counted, as OpenTelemetry's semantic
// conventions count what is in use now (db.client.connection.count): a
// ".count" up-down counter beside the ".duration" of what has ended, in
// the same namespace. Through Prometheus each is a gauge
// (zkrecipes_lock_hold_count).
//
// The recipe is "mutex", "rwlock.read", "rwlock.write", "semaphore" (one
// hold per lease), "lease", "leader.latch" or "leader.selector" (see
// framework.AcquireEvent); the semaphore's guard lock is a part of the
// semaphore's acquire and is counted in it, not as a recipe of its own.
// An outcome is "granted", "not_acquired" (the caller stopped waiting
// while others held the lock) or "error"; a cause is one of framework's
// Cause values ("released", "suspended", "lease_lapsed", "session_lost",
// "deleted", "expired", "closed", ...); an operation is one of
// framework.RequestEvent's ("get", "multi_read", "remove_watch", ...).
// Every value is one word, lower case with underscores.
//
// The connection count has a series for each state, "connected" (a
// Reconnected client too), "suspended", "lost" (no session until the
// next) and "read_only", and counts the clients in it, zeros included:
// with one client, as most processes have, that is Prometheus's usual
// gauge of an enumeration (1 for the state the client is in, 0 for the
// others), an alert on "suspended" or "lost" above 0 needs no absent(),
// and the clients of a process add up. A client has no name that a
// series could carry (its session id changes with each new session), so
// clients are counted, not named. A client is counted from its first
// state change until it is closed.
//
// Paths are left out of metric attributes by default, as a program may
// lock one path per entity; WithPathAttribute adds them (zkrecipes.path).
//
// Spans: "zkrecipes.acquire" from an acquire's start to its grant or
// failure, a child of the span in the acquirer's context, and
// "zkrecipes.leader.term" for each term, made when the term ends with its
// start and end times.
//
// For Prometheus, give New a MeterProvider whose reader is
// go.opentelemetry.io/otel/exporters/prometheus's exporter, and serve
// promhttp's handler; OpenTelemetry's Prometheus exporter turns the names
// above into zookeeper_client_request_duration_seconds and the like.
package otelzk
