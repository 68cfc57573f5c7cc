package reliability_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
	"github.com/zkrecipes/zkrecipes/recipes/cache/cachetest"
	"github.com/zkrecipes/zkrecipes/recipes/node"
	"github.com/zkrecipes/zkrecipes/reliability/internal/chaos"
)

// chaosNodeView is the newest layer as one user puts it together: on one
// client the faults hit, a node.Node keeps a directory, a cache follows
// it, and a reader re-reads its data with a one-shot watch at each
// change, so that the one-shot and recursive watches of one path share a
// connection. Another client makes and deletes ephemeral
// workers under the directory, and now and then the directory itself,
// which the Node makes again, while the keeper sets the Node's data. The cache's events, replayed from nothing,
// must give the server's tree, and no incarnation the server still has
// may ever have been told deleted.
type chaosNodeView struct {
	dir                    string
	writer                 *framework.Client
	node                   *node.Node
	cache                  *cache.Cache
	seq                    *cachetest.Sequence
	stopWriter, stopReader context.CancelFunc
	writing, reading       sync.WaitGroup

	reads, made, deleted, dirDeleted, dataSet atomic.Int64
	lastData                                  atomic.Pointer[[]byte] // the data SetData last set
}

func startChaosNodeView(t *testing.T, root string, keeper, writer *framework.Client, seed uint64) *chaosNodeView {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	v := &chaosNodeView{dir: root + "/nodeview", writer: writer, seq: cachetest.NewSequence(root + "/nodeview")}
	// The cache first, as a user's follower of a directory another part
	// of the program keeps: the node's own watch comes after the cache's.
	var err error
	v.cache, err = cache.New(keeper, v.dir)
	require.NoError(t, err)
	v.cache.AddListener(v.seq.Listener())
	require.NoError(t, v.cache.Start(context.Background())) // until judge closes it
	require.NoError(t, v.cache.AwaitInitialized(ctx))
	v.node, err = node.New(keeper, v.dir, framework.Persistent, []byte("view"))
	require.NoError(t, err)
	require.NoError(t, v.node.Start(context.Background())) // until judge closes it
	require.NoError(t, v.node.AwaitCreated(ctx))
	readCtx, stopReader := context.WithCancel(context.Background())
	writeCtx, stopWriter := context.WithCancel(context.Background())
	v.stopReader, v.stopWriter = stopReader, stopWriter
	v.reading.Go(func() { v.read(readCtx, keeper) })                                    // ends with judge's stopReader
	v.writing.Go(func() { v.write(writeCtx, writer, rand.New(rand.NewPCG(seed, 39))) }) // ends with judge's stopWriter
	v.lastData.Store(&[]byte{'v', 'i', 'e', 'w'})
	return v
}

// read reads the directory's data with a one-shot watch, again at each
// change. It reads no children: a child one-shot's events would tell a
// silenced cache where to look again.
func (v *chaosNodeView) read(ctx context.Context, c *framework.Client) {
	for ctx.Err() == nil {
		_, _, changed, err := c.GetW(ctx, v.dir)
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

// write makes and deletes workers, every twentieth step sets the Node's
// data, and every fiftieth deletes the directory with its workers, all
// errors of faults ignored.
func (v *chaosNodeView) write(ctx context.Context, c *framework.Client, rnd *rand.Rand) {
	var workers []string
	for step := 0; ctx.Err() == nil; step++ {
		switch {
		case step%20 == 19:
			data := []byte(fmt.Sprintf("view %d", step))
			if v.node.SetData(ctx, data) == nil {
				v.dataSet.Add(1)
				v.lastData.Store(&data)
			}
		case step%50 == 49:
			names, _, _ := c.Children(ctx, v.dir)
			for _, name := range names {
				_ = c.Delete(ctx, v.dir+"/"+name, -1)
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
	v.stopWriter()
	v.writing.Wait()
	v.lastWorkers(report)
	v.stopReader()
	v.reading.Wait()
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
	if problem := v.dataInForce(observer); problem != "" {
		report.StateProblems = append(report.StateProblems, "node view: "+problem)
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
	report.Caches["nodeview_data_set"] = int(v.dataSet.Load())
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

// lastWorkers makes workers once every fault and every other write is
// over, right after the reader has set its one-shot watch again on a data
// change: nothing but the cache's own watch tells it of these.
func (v *chaosNodeView) lastWorkers(report *chaos.Report) {
	ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
	defer cancel()
	reads := v.reads.Load()
	data := []byte("view, last")
	if err := v.node.SetData(ctx, data); err != nil {
		report.StateProblems = append(report.StateProblems, fmt.Sprintf("node view: the last data: %v", err))
		return
	}
	v.lastData.Store(&data)
	for v.reads.Load() == reads && ctx.Err() == nil {
		pause(ctx, 10*time.Millisecond) // for the reader's GetW after the change
	}
	for i := 0; i < 5 && ctx.Err() == nil; {
		w := fmt.Sprintf("%s/w-last-%d", v.dir, i)
		_, err := v.writer.Create(ctx, w, []byte(w), framework.Ephemeral)
		if err == nil || errors.Is(err, zk.ErrNodeExists) {
			i++
			continue
		}
		pause(ctx, 100*time.Millisecond) // the Node is making the directory again
	}
	if err := ctx.Err(); err != nil {
		report.StateProblems = append(report.StateProblems, fmt.Sprintf("node view: the last workers: %v", err))
	}
}

// dataInForce waits for the Node's data to be on the server and says
// what is wrong if the server holds other data than SetData last set.
func (v *chaosNodeView) dataInForce(observer *framework.Client) string {
	ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
	defer cancel()
	if err := v.node.AwaitData(ctx); err != nil {
		return fmt.Sprintf("await data: %v", err)
	}
	want := *v.lastData.Load()
	got, _, err := observer.Get(ctx, v.dir)
	if err != nil {
		return fmt.Sprintf("read data: %v", err)
	}
	if string(got) != string(want) {
		return fmt.Sprintf("the directory holds %q, but SetData last set %q", got, want)
	}
	return ""
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
