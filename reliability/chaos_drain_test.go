package reliability_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
	"github.com/zkrecipes/zkrecipes/reliability/internal/chaos"
)

// The chaos run's drain takes a backlog that outlasts its stall limit
// many times over: it ends on a lack of progress, not after a fixed time.
func TestChaosQueues_DrainGoesOnWhileItemsLeaveTheQueues(t *testing.T) {
	t.Parallel()
	c := zktest.Connect(t, zktest.Servers(t))
	root := zktest.UniquePath(t)
	clock := chaos.NewLedger().Clock()
	cq := &chaosQueues{
		root:     root,
		lockSafe: &chaos.QueueLedger{Name: "lock-safe queue", Clock: clock},
		tx:       &chaos.QueueLedger{Name: "transactional queue", Clock: clock},
		simple:   &chaos.SimpleLedger{Name: "simple queue", Clock: clock},
	}
	ctx := zktest.Context(t)
	for _, dir := range []string{cq.txDir(), cq.simpleDir()} {
		_, err := c.Create(ctx, dir, nil, framework.Persistent, framework.WithParents())
		require.NoError(t, err)
	}
	q, err := queue.New(c, cq.lockSafeDir(), queue.StringCodec{}, queue.WithLockPath(cq.lockSafeDir()+"-locks"))
	require.NoError(t, err)
	const backlog = 2000
	var wg sync.WaitGroup
	for i := range backlog {
		wg.Go(func() { // ends with its put
			assert.NoError(t, q.Put(ctx, fmt.Sprintf("item/%d", i)))
		})
	}
	wg.Wait()
	require.NoError(t, q.Close(ctx))
	require.Len(t, queueItems(t, c, cq.lockSafeDir()), backlog)

	const stall = 3 * time.Second
	start := time.Now()
	left, why := cq.drain(t, c, stall, time.Minute)
	t.Logf("drained %d items in %v", backlog, time.Since(start))
	assert.Empty(t, left, "items left: %s", why)
	assert.Zero(t, len(queueItems(t, c, cq.lockSafeDir())), "items on the server")
	assert.Equal(t, backlog, cq.lockSafe.Counts()["items_consumed"], "by the drain's consumer")
}
