package atomicvalue_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/atomicvalue"
)

// Numbers handed out from chunks by several clients at once, several
// goroutines each, are each handed out once, and none is skipped when
// every chunk is used up.
func TestCachedLong_HandsOutEachNumberOnceAcrossClients(t *testing.T) {
	const clients, goroutines, each, chunk = 2, 4, 10, 5
	servers := zktest.Servers(t)
	ctx := testContext(t)
	path := zktest.UniquePath(t)

	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		got []int64
	)
	for range clients {
		// Retried until it succeeds, so that every number is handed out.
		cl, err := atomicvalue.NewCachedLong(connect(t, servers), path, chunk,
			atomicvalue.WithRetryPolicy(framework.RetryForever(time.Millisecond)))
		require.NoError(t, err)
		for range goroutines {
			wg.Add(1)
			go func() { // ends after its numbers
				defer wg.Done()
				for range each {
					r, err := cl.Next(ctx)
					if !assert.NoError(t, err) || !assert.True(t, r.Succeeded) {
						return
					}
					assert.Equal(t, r.PreValue+1, r.PostValue)
					mu.Lock()
					got = append(got, r.PostValue)
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	slices.Sort(got)
	want := make([]int64, clients*goroutines*each)
	for i := range want {
		want[i] = int64(i + 1)
	}
	assert.Equal(t, want, got, "each number once, none skipped")
	total, err := newLong(t, connect(t, servers), path).Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(len(want)), total.PreValue, "the chunks taken are used up")
}

// A number from a chunk already taken costs no request.
func TestCachedLong_NumbersOfATakenChunkCostNoRequest(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, newLong(t, c, path).ForceSet(ctx, 100))
	cl, err := atomicvalue.NewCachedLong(c, path, 10)
	require.NoError(t, err)

	before := requests()
	r, err := cl.Next(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(101), r.PostValue)
	assert.Equal(t, 1, r.Stats.OptimisticTries, "the chunk's Add")
	assert.Equal(t, int64(2), requests()-before, "a read and a write")
	for i := int64(2); i <= 10; i++ {
		r, err := cl.Next(ctx)
		require.NoError(t, err)
		assert.Equal(t, 100+i, r.PostValue)
		assert.Zero(t, r.Stats.OptimisticTries)
	}
	assert.Equal(t, int64(2), requests()-before, "the rest of the chunk is free")
	r, err = cl.Next(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(111), r.PostValue, "the next chunk")
	assert.Equal(t, int64(4), requests()-before)
}
