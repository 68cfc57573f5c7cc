// Package leaderhttp serves a leader election participant's health over
// HTTP, for a readiness or liveness probe: Handler answers 200 while the
// participant (a leader.Latch or a leader.Selector) is healthy and 503,
// with the reason, while it believes it leads past its session's lease or
// a selector's function ignores its cancellation (see leader.Latch.Healthy
// and leader.Selector.Healthy).
//
// It is a package of its own so that a program that elects a leader links
// net/http (and crypto/tls) only if it serves a probe: package leader
// imports neither.
//
//	http.Handle("/healthz", leaderhttp.Handler(latch, 5*time.Second))
package leaderhttp
