package reliability_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
	"github.com/zkrecipes/zkrecipes/recipes/cache/cachetest"
	"github.com/zkrecipes/zkrecipes/recipes/node"
	"github.com/zkrecipes/zkrecipes/reliability/internal/chaos"
)

// chaosNodeView is the newest layer as one user puts it together: on one
// client the faults hit, a node.Node keeps a directory, a cache follows
// it, and a reader re-reads its children with a one-shot watch at each
// change, so that the one-shot, persistent and recursive watches of one
// path share a connection. Another client makes and deletes ephemeral
// workers under the directory, and now and then the directory itself,
// which the Node makes again. The cache's events, replayed from nothing,
// must give the server's tree, and no incarnation the server still has
// may ever have been told deleted.
type chaosNodeView struct {
	dir   string
	node  *node.Node
	cache *cache.Cache
	seq   *cachetest.Sequence
	stop  context.CancelFunc
	wg    sync.WaitGroup

	reads, made, deleted, dirDeleted atomic.Int64
}

func startChaosNodeView(t *testing.T, root string, keeper, writer *framework.Client, seed uint64) *chaosNodeView {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	v := &chaosNodeView{dir: root + "/nodeview", seq: cachetest.NewSequence(root + "/nodeview")}
	var err error
	v.node, err = node.New(keeper, v.dir, framework.Persistent, []byte("view"))
	require.NoError(t, err)
	require.NoError(t, v.node.Start(context.Background())) // until judge closes it
	require.NoError(t, v.node.AwaitCreated(ctx))
	v.cache, err = cache.New(keeper, v.dir)
	require.NoError(t, err)
	v.cache.AddListener(v.seq.Listener())
	require.NoError(t, v.cache.Start(context.Background())) // until judge closes it
	require.NoError(t, v.cache.AwaitInitialized(ctx))
	runCtx, stop := context.WithCancel(context.Background())
	v.stop = stop
	v.wg.Go(func() { v.read(runCtx, keeper) })                                   // ends with judge's stop
	v.wg.Go(func() { v.write(runCtx, writer, rand.New(rand.NewPCG(seed, 39))) }) // likewise
	return v
}

// read lists the directory with a one-shot watch, again at each change.
func (v *chaosNodeView) read(ctx context.Context, c *framework.Client) {
	for ctx.Err() == nil {
		_, _, changed, err := c.ChildrenW(ctx, v.dir)
		if err != nil {
			pause(ctx, 50*time.Millisecond) // a fault, or the directory is being made again
			continue
		}
		v.reads.Add(1)
		select {
		case <-changed:
		case <-ctx.Done():
		}
	}
}

// write makes and deletes workers, and every fiftieth step deletes the
// directory with what it knows of them, all errors of faults ignored.
func (v *chaosNodeView) write(ctx context.Context, c *framework.Client, rnd *rand.Rand) {
	var workers []string
	for step := 0; ctx.Err() == nil; step++ {
		switch {
		case step%50 == 49:
			for _, w := range workers {
				_ = c.Delete(ctx, w, -1)
			}
			workers = workers[:0]
			if c.Delete(ctx, v.dir, -1) == nil {
				v.dirDeleted.Add(1)
			}
		case len(workers) > 0 && rnd.IntN(3) == 0:
			i := rnd.IntN(len(workers))
			if c.Delete(ctx, workers[i], -1) == nil {
				v.deleted.Add(1)
			}
			workers = append(workers[:i], workers[i+1:]...)
		default:
			w := fmt.Sprintf("%s/w-%d", v.dir, step)
			if _, err := c.Create(ctx, w, []byte(w), framework.Ephemeral); err == nil {
				v.made.Add(1)
				workers = append(workers, w)
			}
		}
		pause(ctx, 10*time.Millisecond)
	}
}

// judge stops the writer and the reader, waits for the cache and the
// replay of its events to agree with the server, records what did not,
// and deletes the directory.
func (v *chaosNodeView) judge(t *testing.T, observer *framework.Client, report *chaos.Report) {
	v.stop()
	v.wg.Wait()
	var last []cachetest.Divergence
	deadline := time.Now().Add(settleTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		var err error
		last, err = cachetest.Compare(ctx, observer, v.dir, -1, true, v.cache.Entries())
		if err == nil && len(last) == 0 {
			last, err = cachetest.Compare(ctx, observer, v.dir, -1, true, replayed(v.seq))
		}
		cancel()
		if err == nil && len(last) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, d := range last {
		report.CacheDivergences = append(report.CacheDivergences, fmt.Sprintf("node view: %s", d))
	}
	for _, s := range v.seq.Violations() {
		report.CacheDivergences = append(report.CacheDivergences, fmt.Sprintf("node view: events: %s", s))
	}
	if report.Caches == nil {
		report.Caches = map[string]int{}
	}
	report.Caches["nodeview_workers_made"] = int(v.made.Load())
	report.Caches["nodeview_workers_deleted"] = int(v.deleted.Load())
	report.Caches["nodeview_dir_deleted"] = int(v.dirDeleted.Load())
	report.Caches["nodeview_oneshot_reads"] = int(v.reads.Load())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = v.cache.Close(ctx)
	names, _, _ := observer.Children(ctx, v.dir)
	for _, name := range names {
		_ = observer.Delete(ctx, v.dir+"/"+name, -1)
	}
	if err := v.node.Close(ctx); err != nil {
		report.StateProblems = append(report.StateProblems, fmt.Sprintf("node view: close: %v", err))
	}
}

// replayed returns the tree a Sequence's events describe, as entries.
func replayed(seq *cachetest.Sequence) []cache.Entry {
	held := seq.Held()
	entries := make([]cache.Entry, 0, len(held))
	for _, e := range held {
		entries = append(entries, e)
	}
	return entries
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
	}
}
