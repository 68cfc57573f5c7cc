package sharedcount_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
)

// A TrySet that the server applied but whose answer was lost is reported
// applied, or as of unknown outcome, never as not applied: the retry meets
// the version its own write made (issue 20, item 1).
func TestSharedCount_TrySetWhoseAnswerIsLostIsNeverReportedNotApplied(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	sc := newCount(t, c, zktest.UniquePath(t), 10)
	v, err := sc.Get(ctx)
	require.NoError(t, err)

	proxy.DropNextReply(zktest.OpSetData)
	ok, err := sc.TrySet(ctx, v.Count+1, v.Version)
	require.Equal(t, 1, proxy.DroppedReplies(), "the answer was lost")
	if err != nil {
		require.ErrorIs(t, err, sharedcount.ErrOutcomeUnknown)
	} else {
		require.True(t, ok, "an applied write reported as not applied")
	}
	after, err := sc.Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, v.Count+1, after.Count, "applied once")
	assert.Equal(t, v.Version+1, after.Version)
}

// The documented increment loop, from several clients whose answers get
// lost, never increments twice for one increment: the count ends at the
// number of increments reported applied, plus at most those of unknown
// outcome, and exactly at the total when none was unknown.
func TestSharedCount_IncrementLoopUnderLostAnswersCountsEachIncrementOnce(t *testing.T) {
	const clients, increments = 3, 10
	servers := zktest.Servers(t)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	base, err := newCount(t, connect(t, servers), path, 100).Get(ctx)
	require.NoError(t, err)

	var mu sync.Mutex
	applied, unknown := 0, 0
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for range clients {
		proxy := zktest.NewProxy(t, servers)
		sc := newCount(t, connect(t, proxy.Addr()), path, 100)
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Every third try loses its answer.
			a, u, err := incrementLoop(ctx, sc, increments, func(try int) {
				if try%3 == 1 {
					proxy.DropNextReply(zktest.OpSetData)
				}
			})
			mu.Lock()
			applied, unknown = applied+a, unknown+u
			mu.Unlock()
			errs <- err
		}()
	}
	wg.Wait()
	for range clients {
		require.NoError(t, <-errs)
	}
	final, err := newCount(t, connect(t, servers), path, 100).Get(ctx)
	require.NoError(t, err)
	got := int(final.Count - base.Count)
	require.Equal(t, clients*increments, applied+unknown)
	assert.GreaterOrEqual(t, got, applied, "an applied increment was lost")
	assert.LessOrEqual(t, got, applied+unknown, "an increment was applied twice")
	t.Logf("applied %d, unknown %d, count +%d", applied, unknown, got)
}

// incrementLoop is the loop the package doc shows: read, TrySet the next
// value, again on false. An increment of unknown outcome is not tried
// again: the caller cannot tell whether it counted. before is called
// before each TrySet, with its number.
func incrementLoop(ctx context.Context, sc *sharedcount.SharedCount, n int, before func(try int)) (applied, unknown int, err error) {
	for try := 0; applied+unknown < n; try++ {
		v, err := sc.Get(ctx)
		if err != nil {
			return applied, unknown, err
		}
		before(try)
		ok, err := sc.TrySet(ctx, v.Count+1, v.Version)
		switch {
		case errors.Is(err, sharedcount.ErrOutcomeUnknown):
			unknown++
		case err != nil:
			return applied, unknown, fmt.Errorf("try-set: %w", err)
		case ok:
			applied++
		}
	}
	return applied, unknown, nil
}
