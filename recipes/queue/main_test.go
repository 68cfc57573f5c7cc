package queue_test

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

func TestMain(m *testing.M) { zktest.Main(m) }

var (
	connect     = zktest.Connect
	testContext = zktest.Context
)

// recorder is a consumer's function that records what it got.
type recorder struct {
	mu    sync.Mutex
	items []string
	fail  func(item string) error // nil: every item succeeds
}

func (r *recorder) consume(_ context.Context, item string) error {
	r.mu.Lock()
	r.items = append(r.items, item)
	fail := r.fail
	r.mu.Unlock()
	if fail != nil {
		return fail(item)
	}
	return nil
}

func (r *recorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.items...)
}

// waitFor waits until the recorder holds n items, and returns them.
func (r *recorder) waitFor(t testing.TB, n int) []string {
	t.Helper()
	require.Eventually(t, func() bool { return len(r.got()) >= n }, 20*time.Second, 10*time.Millisecond,
		"want %d items, have %v", n, r.got())
	return r.got()
}

// start starts a consumer and closes it when the test ends.
func start[T any](t testing.TB, c *queue.Consumer[T]) *queue.Consumer[T] {
	t.Helper()
	require.NoError(t, c.Start(testContext(t)))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		assert.NoError(t, c.Close(ctx))
	})
	return c
}

// children lists a directory, sorted; none when it does not exist.
func children(t testing.TB, c *framework.Client, path string) []string {
	t.Helper()
	names, _, err := c.Children(testContext(t), path)
	if err != nil {
		return nil
	}
	sort.Strings(names)
	return names
}

// items returns the queue's item nodes (not its directory's others).
func items(t testing.TB, c *framework.Client, path string) []string {
	t.Helper()
	var out []string
	for _, n := range children(t, c, path) {
		if len(n) >= 6 && n[:6] == "queue-" {
			out = append(out, n)
		}
	}
	return out
}

func newQueue(t testing.TB, c *framework.Client, path string, opts ...queue.Option) *queue.Queue[string] {
	t.Helper()
	q, err := queue.New(c, path, queue.StringCodec{}, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = q.Close(context.Background()) })
	return q
}
