package framework

import (
	"context"
	"testing"
)

// BenchmarkRetrySteps_Observer measures the retry loop around a try that
// succeeds at once, without an observer (a nil check) and with one: the
// reporting's own cost, apart from any server's.
func BenchmarkRetrySteps_Observer(b *testing.B) {
	for _, tc := range []struct {
		name     string
		observer Observer
	}{{"off", nil}, {"on", NoopObserver{}}} {
		b.Run(tc.name, func(b *testing.B) {
			c := &Client{cfg: defaultConfig()}
			c.cfg.observer = tc.observer
			ctx := context.Background()
			try := func() (int, error) { return 1, nil }
			b.ReportAllocs()
			for b.Loop() {
				if _, err := retrySteps(ctx, c, "get", "/a", try); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
