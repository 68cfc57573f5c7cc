package recipe

import (
	"context"
	"errors"
	"sync"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// Member is one node of a recipe's queue, read for a participants
// listing.
type Member struct {
	Path  string // relative to the client's namespace
	Data  []byte
	Czxid int64
}

// Queue lists the children of dir, ordered by sort (which sorts in place)
// and kept by keep (nil keeps all), as paths: none when dir does not
// exist.
func Queue(ctx context.Context, client *framework.Client, dir string, sort func([]string), keep func(name string) bool) ([]string, error) {
	names, _, err := client.Children(ctx, dir)
	if err != nil {
		if IsNoNode(err) {
			return nil, nil
		}
		return nil, err
	}
	sort(names)
	paths := make([]string, 0, len(names))
	for _, name := range names {
		if keep == nil || keep(name) {
			paths = append(paths, zkpath.Join(dir, name))
		}
	}
	return paths, nil
}

// maxReadBatch bounds the reads of one multi-read, so that a long queue
// makes several requests of reasonable size instead of one huge one.
const maxReadBatch = 512

// ReadMembers reads the data of every node of paths, keeping their order
// and leaving out those gone by then, as Curator's participantForPath
// does. The reads go in one multi-read (ZooKeeper 3.6+; an older server
// gets them one by one, sent together), in batches of maxReadBatch sent
// together: one round trip either way.
func ReadMembers(ctx context.Context, client *framework.Client, paths []string) ([]Member, error) {
	results := make([]framework.ReadResult, len(paths))
	errs := make([]error, (len(paths)+maxReadBatch-1)/maxReadBatch)
	var wg sync.WaitGroup
	for b := range errs {
		lo, hi := b*maxReadBatch, min((b+1)*maxReadBatch, len(paths))
		// Ends with the batch's answer or ctx.
		wg.Go(func() {
			ops := make([]framework.ReadOp, 0, hi-lo)
			for _, p := range paths[lo:hi] {
				ops = append(ops, framework.GetOp(p))
			}
			res, err := client.MultiRead(ctx, ops...)
			copy(results[lo:hi], res)
			errs[b] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	members := make([]Member, 0, len(paths))
	for i, r := range results {
		switch {
		case r.Err == nil:
			members = append(members, Member{Path: paths[i], Data: r.Data, Czxid: r.Stat.Czxid})
		case !IsNoNode(r.Err):
			return nil, r.Err
		}
	}
	return members, nil
}

// Participants lists and reads the queue of dir (see Queue and
// ReadMembers).
func Participants(ctx context.Context, client *framework.Client, dir string, sort func([]string), keep func(name string) bool) ([]Member, error) {
	paths, err := Queue(ctx, client, dir, sort, keep)
	if err != nil || len(paths) == 0 {
		return nil, err
	}
	return ReadMembers(ctx, client, paths)
}
