package reliability_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
	"github.com/zkrecipes/zkrecipes/recipes/cache/cachetest"
	"github.com/zkrecipes/zkrecipes/reliability/internal/chaos"
)

// chaosCaches are caches of the whole chaos tree beside the recipes, on
// clients the faults hit: the first client's and the quiet last one's.
type chaosCaches struct {
	caches []*cache.Cache
	seqs   []*cachetest.Sequence
}

// startChaosCaches starts a cache of root on the first and last clients.
func startChaosCaches(t *testing.T, root string, clients []*framework.Client) *chaosCaches {
	cs := &chaosCaches{}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, c := range []*framework.Client{clients[0], clients[len(clients)-1]} {
		require.NoError(t, c.EnsurePath(ctx, root))
		cc, err := cache.New(c, root)
		require.NoError(t, err)
		seq := cachetest.NewSequence(root)
		cc.AddListener(seq.Listener())
		require.NoError(t, cc.Start(context.Background())) // until judge closes it
		require.NoError(t, cc.AwaitInitialized(ctx))
		cs.caches, cs.seqs = append(cs.caches, cc), append(cs.seqs, seq)
	}
	return cs
}

// judge waits for each cache to agree with the server's tree, read by the
// observer, records what it did not agree on, and closes the caches.
func (cs *chaosCaches) judge(t *testing.T, observer *framework.Client, root string, report *chaos.Report) {
	if report.Caches == nil {
		report.Caches = map[string]int{}
	}
	report.Caches["checked"] = len(cs.caches)
	for i, cc := range cs.caches {
		var last []cachetest.Divergence
		deadline := time.Now().Add(settleTimeout)
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			err := observer.Sync(ctx, root) // the observer's server has every write the cache may have heard
			if err == nil {
				last, err = cachetest.Compare(ctx, observer, root, -1, true, cc.Entries())
			}
			if err == nil && len(last) == 0 { // and so must its events, replayed
				last, err = cachetest.Compare(ctx, observer, root, -1, true, replayed(cs.seqs[i]))
			}
			cancel()
			if err == nil && len(last) == 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		for _, d := range last {
			report.CacheDivergences = append(report.CacheDivergences, fmt.Sprintf("cache %d: %s", i, d))
		}
		for _, v := range cs.seqs[i].Violations() {
			report.CacheDivergences = append(report.CacheDivergences, fmt.Sprintf("cache %d: events: %s", i, v))
		}
		if err := cc.Err(); err != nil {
			report.CacheDivergences = append(report.CacheDivergences, fmt.Sprintf("cache %d: ended: %v", i, err))
		}
		for _, typ := range []cache.EventType{cache.Created, cache.Changed, cache.Deleted, cache.Initialized} {
			report.Caches[typ.String()] += cs.seqs[i].Count(typ)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = cc.Close(ctx)
		cancel()
	}
}
