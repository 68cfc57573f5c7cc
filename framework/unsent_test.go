package framework_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
)

// A write whose ctx ends while the client is still waiting for a
// connection sent nothing, and says so: it fails with the error of ctx,
// never with ErrOutcomeUnknown, whatever the write (a plain call or a
// transaction, provable after a lost answer or not).
func TestWrite_CtxEndingBeforeAnyConnectionIsNoUnknownOutcome(t *testing.T) {
	t.Parallel()
	c, err := framework.New([]string{deadAddress(t)}, framework.WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	writes := map[string]func(context.Context) error{
		"create": func(ctx context.Context) error {
			_, err := c.Create(ctx, "/a", nil, framework.Persistent)
			return err
		},
		"protected create": func(ctx context.Context) error {
			_, err := c.CreateProtected(ctx, "/a", nil, framework.EphemeralSequential)
			return err
		},
		"set":    func(ctx context.Context) error { _, err := c.Set(ctx, "/a", nil, -1); return err },
		"delete": func(ctx context.Context) error { return c.Delete(ctx, "/a", -1) },
		"multi of a plain create": func(ctx context.Context) error {
			_, err := c.Multi(ctx, framework.CreateOp("/a", nil, framework.Persistent))
			return err
		},
		"multi of a set after a check": func(ctx context.Context) error {
			_, err := c.Multi(ctx, framework.CheckOp("/a", 0), framework.SetOp("/b", nil, -1))
			return err
		},
	}
	for name, write := range writes {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// Several times: the ctx's end races the wait's.
			for range 5 {
				ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
				err := write(ctx)
				cancel()
				require.ErrorIs(t, err, context.DeadlineExceeded)
				assert.NotErrorIs(t, err, framework.ErrOutcomeUnknown, "nothing was sent: %v", err)
			}
		})
	}
}
