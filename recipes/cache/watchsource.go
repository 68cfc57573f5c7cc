package cache

import (
	"context"
	"errors"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// Reads go in multi-reads of at most batchOps reads, at most
// batchesInFlight at once: few requests, and replies of a size the
// client and the server handle well (10,000 nodes of 100 bytes, 100
// by 100, are 16 requests with the watch and each level's lists). The
// size of a node's data is not known before it is read, and a reply too
// large for the client closes the connection: a read that fails divides
// the batches by four for the next try, down to one read, and each read
// that succeeds doubles them again.
const (
	batchOps        = 1000
	batchesInFlight = 4
)

// watchSource is a cache's source on ZooKeeper 3.6+: one recursive watch
// of the root (a persistent one for the root alone), reads in
// multi-reads, and ChangedSince to catch up after a reconnect.
type watchSource struct {
	c     *Cache
	w     *framework.Watch
	batch int // reads per multi-read now, at most batchOps
}

// openWatchSource sets the watch. Its events go to the cache's inbox on
// the client's reading goroutine, before the replies that follow them are
// handed on: once a read returns, every notification the server sent
// before its reply is in the inbox, which the cache takes before it reads
// again (a catch-up's own notifications merge with what it reports). No
// goroutine of the cache's or the watch's stands between.
func openWatchSource(ctx context.Context, c *Cache, mode framework.WatchMode) (*watchSource, error) {
	w, err := c.client.Hooks().WatchFunc(ctx, c.path, mode, c.in.onWatchEvent, c.in.onWatchEnd)
	if err != nil {
		// A watch set and then failed (its answer came too late) may have
		// told something, its end included: not the cache's, which sets
		// another.
		c.in.reset()
		return nil, err
	}
	return &watchSource{c: c, w: w, batch: batchOps}, nil
}

// onWatchEvent asks for what a watch's event calls for. It runs on the
// client's reading goroutine and never blocks (see inbox).
func (b *inbox) onWatchEvent(ev framework.WatchEvent) {
	switch ev.Type {
	case framework.NodeCreated: // under which incarnation of its parent: read it after
		b.read(ev.Path, wantData|wantVerify)
	case framework.NodeDataChanged, framework.NodeDeleted:
		b.read(ev.Path, wantData)
	case framework.WatchResumed, framework.WatchSessionChanged:
		b.catchUp(ev.Zxid)
	}
	// Others are not for the cache: a child list of the root alone (not
	// cached), a new connection before the watch is set again on it (the
	// catch-up after WatchResumed reads what it missed).
}

// onWatchEnd tells the cache that the watch ended on its own.
func (b *inbox) onWatchEnd(err error) { b.end(err) }

func (s *watchSource) read(ctx context.Context, reqs []request) ([]result, error) {
	batches := s.split(reqs)
	answers := make([][]framework.ReadResult, len(batches))
	errs := make([]error, len(batches))
	sem := make(chan struct{}, batchesInFlight)
	var wg sync.WaitGroup
	for i, b := range batches {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			answers[i], errs[i] = s.c.client.MultiRead(ctx, b.ops...)
			<-sem
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		s.batch = max(1, s.batch/4)
		return nil, err
	}
	s.batch = min(batchOps, s.batch*2)
	out := make([]result, 0, len(reqs))
	for i, b := range batches {
		out = b.results(answers[i], out)
	}
	return out, nil
}

// readBatch is one multi-read: the reads of its requests, then one read
// of each parent that some of them verify. The server answers a
// multi-read's reads in order, so a parent's read comes after the reads
// of its children in the batch.
type readBatch struct {
	reqs    []request
	ops     []framework.ReadOp
	parents []string // verified, read in this order after ops
	has     map[string]bool
}

// split divides reqs into batches of at most s.batch reads.
func (s *watchSource) split(reqs []request) []readBatch {
	var batches []readBatch
	b := readBatch{has: map[string]bool{}}
	for _, r := range reqs {
		n := opsOf(r.want)
		parent := zkpath.Parent(r.path)
		verifies := r.want&wantVerify != 0
		if verifies && !b.has[parent] {
			n++
		}
		if len(b.ops)+len(b.parents) > 0 && len(b.ops)+len(b.parents)+n > s.batch {
			batches = append(batches, b.closed())
			b = readBatch{has: map[string]bool{}}
		}
		b.reqs = append(b.reqs, r)
		if r.want&wantData != 0 {
			b.ops = append(b.ops, framework.GetOp(r.path))
		}
		if r.want&wantList != 0 {
			b.ops = append(b.ops, framework.ChildrenOp(r.path))
		}
		if verifies && !b.has[parent] {
			b.has[parent] = true
			b.parents = append(b.parents, parent)
		}
	}
	if len(b.reqs) > 0 {
		batches = append(batches, b.closed())
	}
	return batches
}

// opsOf is how many reads a request of w makes, its parent's aside.
func opsOf(w want) int {
	n := 0
	if w&wantData != 0 {
		n++
	}
	if w&wantList != 0 {
		n++
	}
	return n
}

// closed appends the parents' reads after the requests' own.
func (b readBatch) closed() readBatch {
	for _, p := range b.parents {
		b.ops = append(b.ops, framework.GetOp(p))
	}
	return b
}

// results appends to out the results of the batch's requests, from the
// multi-read's answers rs.
func (b readBatch) results(rs []framework.ReadResult, out []result) []result {
	own := rs[:len(rs)-len(b.parents)]
	verified := make(map[string]*result, len(b.parents))
	for i, p := range b.parents {
		v := rs[len(own)+i]
		r := &result{request: request{path: p, want: wantData}}
		r.fromData(v.Data, v.Stat, v.Err)
		verified[p] = r
	}
	for _, req := range b.reqs {
		r := result{request: req}
		if req.want&wantData != 0 {
			r.fromData(own[0].Data, own[0].Stat, own[0].Err)
			own = own[1:]
		}
		if req.want&wantList != 0 {
			r.fromList(own[0].Children, own[0].Err)
			own = own[1:]
		}
		if req.want&wantVerify != 0 {
			r.verify = verified[zkpath.Parent(req.path)]
		}
		out = append(out, r)
	}
	return out
}

func (s *watchSource) catchUp(ctx context.Context, since int64, present, absent []string) ([]request, error) {
	evs, err := s.c.client.ChangedSince(ctx, since, present, absent)
	if err != nil {
		return nil, err
	}
	reqs := make([]request, 0, len(evs))
	for _, ev := range evs {
		w := wantData
		if ev.Type == framework.NodeChildrenChanged {
			w = wantList
		}
		reqs = append(reqs, request{path: ev.Path, want: w})
	}
	return reqs, nil
}

func (s *watchSource) close(ctx context.Context) { _ = s.w.Close(ctx) }

// listsEveryNode is false: the recursive watch tells of every child
// created later.
func (s *watchSource) listsEveryNode() bool { return false }

// fromData records a data read: a missing node is not an error.
func (r *result) fromData(data []byte, stat *zk.Stat, err error) {
	switch {
	case errors.Is(err, zk.ErrNoNode):
	case err != nil:
		r.err = err
	default:
		r.exists, r.data = true, data
		if stat != nil {
			r.stat = *stat
		}
	}
}

// fromList records a list read: a missing node lists nothing.
func (r *result) fromList(children []string, err error) {
	switch {
	case errors.Is(err, zk.ErrNoNode):
	case err != nil:
		r.err = err
	default:
		r.children, r.listed = children, true
	}
}
