package leaderhttp

import (
	"net/http"
	"time"
)

// Checker is what Handler probes: *leader.Latch and *leader.Selector are
// Checkers. Healthy returns nil while the participant is healthy, and
// otherwise an error wrapping leader.ErrUnhealthy that says why.
type Checker interface {
	Healthy(maxStale time.Duration) error
}

// Handler returns an http.Handler for a readiness or liveness probe: 200
// and "ok" while p.Healthy(maxStale) is nil, else 503 with the error's
// text. It answers every method and path alike.
func Handler(p Checker, maxStale time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if err := p.Healthy(maxStale); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
}
