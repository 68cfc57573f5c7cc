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
//	zkrecipes.session.lease.margin      gauge      time left on each client's session lease, read at collection
//	zkrecipes.lock.wait.duration        histogram  acquires, start to grant or failure (zkrecipes.recipe, zkrecipes.acquire.outcome)
//	zkrecipes.lock.waiters              up-down    acquires under way (zkrecipes.recipe)
//	zkrecipes.lock.hold.duration        histogram  holds, start to end (zkrecipes.recipe, zkrecipes.hold.cause)
//	zkrecipes.lock.losses               counter    holds lost (zkrecipes.recipe, zkrecipes.hold.cause)
//	zkrecipes.leader.term.duration      histogram  terms of leadership (zkrecipes.hold.cause)
//	zkrecipes.leader.leading            up-down    terms under way
//
// The recipe is "mutex", "rwlock.read", "rwlock.write", "semaphore",
// "semaphore.guard", "leader.latch" or "leader.selector" (see
// framework.AcquireEvent); an outcome is "granted", "not_acquired" (the
// caller stopped waiting while others held the lock) or "error"; a cause
// is one of framework's Cause values ("released", "suspended",
// "lease_lapsed", "session_lost", "deleted", "expired", "closed", ...).
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
