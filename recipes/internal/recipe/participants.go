package recipe

import (
	"context"
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

// ReadMembers reads the data of every node of paths, keeping their order
// and leaving out those gone by then, as Curator's participantForPath
// does. go-zookeeper has no multi-read: the reads are sent together, each
// on its own goroutine, so that they share one round trip.
func ReadMembers(ctx context.Context, client *framework.Client, paths []string) ([]Member, error) {
	type answer struct {
		m   Member
		ok  bool
		err error
	}
	answers := make([]answer, len(paths))
	var wg sync.WaitGroup
	for i, p := range paths {
		// Ends with the read's answer or ctx.
		wg.Go(func() {
			data, stat, err := client.Get(ctx, p)
			switch {
			case err == nil:
				answers[i] = answer{m: Member{Path: p, Data: data, Czxid: stat.Czxid}, ok: true}
			case !IsNoNode(err):
				answers[i].err = err
			}
		})
	}
	wg.Wait()
	members := make([]Member, 0, len(paths))
	for _, a := range answers {
		if a.err != nil {
			return nil, a.err
		}
		if a.ok {
			members = append(members, a.m)
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
