package framework_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// A write (a set, a create, a transaction) whose ctx ends about when its
// request goes out or its answer comes is never reported failed, without
// ErrOutcomeUnknown, after the server applied it: neither when the answer
// came as ctx ended (the client then returns the answer), nor when the
// request left after the caller had given up. Each write gets a deadline
// drawn from zero to a few round trips; the chaos run found a guarded
// transaction reported failed while its job was taken, and sets fared
// worse.
func TestLostAnswer_AWriteEndedByItsCtxIsNeverReportedFailedIfApplied(t *testing.T) {
	t.Parallel()
	// nth is the path of the i-th node a create makes under dir.
	nth := func(dir string, i int) string { return fmt.Sprintf("%s/n%d", dir, i) }
	exists := func(c *framework.Client, dir string, i int) bool {
		ok, _, err := c.Exists(context.Background(), nth(dir, i))
		require.NoError(t, err)
		return ok
	}
	writes := []struct {
		name string
		// write runs the i-th write under ctx; applied reads whether it
		// took effect.
		write   func(ctx context.Context, c *framework.Client, dir string, i int) error
		applied func(c *framework.Client, dir string, i int) bool
	}{
		{"set", func(ctx context.Context, c *framework.Client, dir string, i int) error {
			_, err := c.Set(ctx, dir, []byte(fmt.Sprint(i)), -1)
			return err
		}, func(c *framework.Client, dir string, i int) bool {
			data, _, err := c.Get(context.Background(), dir)
			require.NoError(t, err)
			return bytes.Equal(data, []byte(fmt.Sprint(i)))
		}},
		{"create", func(ctx context.Context, c *framework.Client, dir string, i int) error {
			_, err := c.Create(ctx, nth(dir, i), nil, framework.Persistent)
			return err
		}, exists},
		{"multi", func(ctx context.Context, c *framework.Client, dir string, i int) error {
			_, err := c.Multi(ctx, framework.CreateOp(nth(dir, i), nil, framework.Persistent))
			return err
		}, exists},
	}
	for _, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			c := connect(t, zktest.Servers(t))
			dir, err := c.Create(testContext(t), zktest.UniquePath(t), nil, framework.Persistent, framework.WithParents())
			require.NoError(t, err)
			failed, wrong := 0, 0
			for i := range 4000 {
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rand.IntN(600))*time.Microsecond)
				err := w.write(ctx, c, dir, i)
				cancel()
				if err == nil || errors.Is(err, framework.ErrOutcomeUnknown) {
					continue
				}
				failed++
				if w.applied(c, dir, i) {
					wrong++
					t.Logf("write %d failed with %q, but was applied", i, err)
				}
			}
			t.Logf("%d writes of 4000 failed outright", failed)
			assert.Zero(t, wrong, "writes reported failed that the server applied")
		})
	}
}
