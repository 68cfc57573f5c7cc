package leases_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// records is a slog.Handler that keeps every record, for tests of what the
// library logs.
type records struct {
	mu   sync.Mutex
	list []slog.Record
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *records) WithGroup(string) slog.Handler            { return r }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, rec.Clone())
	return nil
}

// about returns the records whose path attribute is path.
func (r *records) about(path string) []slog.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []slog.Record
	for _, rec := range r.list {
		rec.Attrs(func(a slog.Attr) bool {
			if a.Key == "path" && a.Value.String() == path {
				out = append(out, rec)
				return false
			}
			return true
		})
	}
	return out
}

// The expiry of a time-bounded lease, session or TTL, is what its bound is
// for: it is logged at Info, not Warn, and its error names the library
// once ("zkrecipes: lost: bound passed without renewal ..."), however it
// is wrapped.
func TestBound_ExpiryIsLoggedAtInfoAndNamesTheLibraryOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  semaphore.Option
	}{
		{"session", semaphore.WithMaxHold(500 * time.Millisecond)},
		{"ttl", semaphore.WithTTL(500 * time.Millisecond)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := &records{}
			c := connect(t, zktest.Servers(t), framework.WithLogger(slog.New(log)))
			ctx := testContext(t)
			s, err := semaphore.New(c, zktest.UniquePath(t), 1, tc.opt)
			require.NoError(t, err)
			l, err := s.Acquire(ctx)
			require.NoError(t, err)
			waitClosed(t, l.Lost(), 10*time.Second, "the loss channel")
			require.ErrorIs(t, l.Err(), leases.ErrExpired)
			require.ErrorIs(t, l.Err(), leases.ErrLost)
			for _, err := range []error{l.Err(), l.Renew(ctx), l.Release(ctx)} {
				assert.Equal(t, 1, strings.Count(err.Error(), "zkrecipes:"), "%q", err.Error())
				assert.Contains(t, err.Error(), "zkrecipes: lost: bound passed without renewal")
			}
			require.Eventually(t, func() bool { return len(log.about(l.Node())) > 0 },
				10*time.Second, 5*time.Millisecond, "the expiry is logged")
			for _, rec := range log.about(l.Node()) {
				assert.Less(t, rec.Level, slog.LevelWarn, "%s: %s", rec.Level, rec.Message)
			}
		})
	}
}
