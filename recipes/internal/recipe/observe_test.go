package recipe

import (
	"context"
	"log/slog"
	"testing"

	"github.com/zkrecipes/zkrecipes/framework"
)

// BenchmarkAcquiring measures reporting an acquire's start and end,
// without an observer (a nil check) and with one.
func BenchmarkAcquiring(b *testing.B) {
	for _, tc := range []struct {
		name string
		opts []framework.Option
	}{{"off", nil}, {"on", []framework.Option{framework.WithObserver(framework.NoopObserver{})}}} {
		b.Run(tc.name, func(b *testing.B) {
			opts := append([]framework.Option{framework.WithLogger(slog.New(slog.DiscardHandler))}, tc.opts...)
			c, err := framework.New([]string{"127.0.0.1:1"}, opts...) // never connects; no I/O is needed
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				a := StartAcquire(ctx, c, "mutex", "/a")
				a.Done(nil)
			}
		})
	}
}
