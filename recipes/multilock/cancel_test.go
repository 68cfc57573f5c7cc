package multilock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// queues are the directories, under base, where an acquire waiting at
// part i has its node queued behind the holder's.
var queues = []string{"/a", "/b", "/c/leases"}

func TestMultiLock_ContextEndedAtEachWaitLeavesNothing(t *testing.T) {
	for i := range 3 {
		c := connect(t, zktest.Servers(t))
		base := zktest.UniquePath(t)
		ml := newLocks(t, c, base).multi(t)
		release := holdPart(t, newLocks(t, connect(t, zktest.Servers(t)), base), i)
		theirs := nodes(t, c, base)

		ctx, cancel := context.WithCancel(testContext(t))
		got := make(chan error, 1)
		go func() { // ends when the acquire does: at cancel, or with the test's ctx
			h, err := ml.Acquire(ctx)
			if err == nil {
				_ = h.Release(context.Background())
			}
			got <- err
		}()
		require.Eventually(t, func() bool { return len(children(t, c, base+queues[i])) == 2 }, 10*time.Second, 10*time.Millisecond, "the acquire waits at part %d", i)
		cancel()
		select {
		case err := <-got:
			require.ErrorIs(t, err, context.Canceled, "waiting at part %d", i)
		case <-time.After(10 * time.Second):
			t.Fatalf("the acquire waiting at part %d did not end with its context", i)
		}
		assert.Equal(t, theirs, nodes(t, c, base), "an acquire cancelled at part %d left nodes behind", i)
		release()
		assert.Empty(t, nodes(t, c, base))
	}
}
