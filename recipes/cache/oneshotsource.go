package cache

import (
	"context"
	"errors"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// readsInFlight bounds the one-shot source's concurrent reads.
const readsInFlight = 32

// oneShotSource is a cache's source on a server before ZooKeeper 3.6, as
// Curator's TreeCache works: a data watch and a child watch of every
// cached node, set by the reads themselves (GetW, ChildrenW; ExistsW for
// a missing root). The client sets them again after a reconnect relative
// to the last zxid it saw, so that the server fires those whose nodes
// changed meanwhile, and nothing else; after a new session they end, and
// the cache reads their nodes again. Each watch waits on a goroutine of
// its own, which forwards its one event: the client hands a one-shot
// watch's event over on a channel only.
type oneShotSource struct {
	c    *Cache
	stop chan struct{} // closed by close: the watches' goroutines end

	mu    sync.Mutex
	armed map[string]want // the watches set and not yet fired
}

func newOneShotSource(c *Cache) *oneShotSource {
	return &oneShotSource{c: c, stop: make(chan struct{}), armed: make(map[string]want)}
}

func (s *oneShotSource) read(ctx context.Context, reqs []request) ([]result, error) {
	out := make([]result, len(reqs))
	if err := s.each(len(reqs), func(i int) (err error) {
		out[i], err = s.readOne(ctx, reqs[i])
		return err
	}); err != nil {
		return nil, err
	}
	// The parents verified are read once every node's reads are answered,
	// so after them.
	var parents []string
	verified := make(map[string]*result)
	for _, r := range reqs {
		if p := zkpath.Parent(r.path); r.want&wantVerify != 0 && verified[p] == nil {
			verified[p] = &result{request: request{path: p, want: wantData}}
			parents = append(parents, p)
		}
	}
	if err := s.each(len(parents), func(i int) error {
		data, stat, err := s.c.client.Get(ctx, parents[i])
		if err != nil && !errors.Is(err, zk.ErrNoNode) {
			return err
		}
		verified[parents[i]].fromData(data, stat, err)
		return nil
	}); err != nil {
		return nil, err
	}
	for i, r := range reqs {
		if r.want&wantVerify != 0 {
			out[i].verify = verified[zkpath.Parent(r.path)]
		}
	}
	return out, nil
}

// each runs read(i) for i below n, readsInFlight at once, and joins
// their errors.
func (s *oneShotSource) each(n int, read func(i int) error) error {
	errs := make([]error, n)
	sem := make(chan struct{}, readsInFlight)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			errs[i] = read(i)
			<-sem
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// readOne reads a node and sets the watches it lacks.
func (s *oneShotSource) readOne(ctx context.Context, req request) (result, error) {
	r := result{request: req}
	client := s.c.client
	if req.want&wantData != 0 {
		if s.arm(req.path, wantData) {
			data, stat, ch, err := client.GetW(ctx, req.path)
			if errors.Is(err, zk.ErrNoNode) {
				s.disarm(req.path, wantData)
				if req.path == s.c.path {
					return s.watchRoot(ctx, req)
				}
			} else if err == nil {
				s.wait(req.path, wantData, ch)
			} else {
				s.disarm(req.path, wantData)
				return r, err
			}
			r.fromData(data, stat, err)
		} else {
			data, stat, err := client.Get(ctx, req.path)
			if err != nil && !errors.Is(err, zk.ErrNoNode) {
				return r, err
			}
			r.fromData(data, stat, err)
		}
	}
	if req.want&wantList != 0 {
		if s.arm(req.path, wantList) {
			names, _, ch, err := client.ChildrenW(ctx, req.path)
			switch {
			case err == nil:
				s.wait(req.path, wantList, ch)
			case errors.Is(err, zk.ErrNoNode):
				s.disarm(req.path, wantList)
			default:
				s.disarm(req.path, wantList)
				return r, err
			}
			r.fromList(names, err)
		} else {
			names, _, err := client.Children(ctx, req.path)
			if err != nil && !errors.Is(err, zk.ErrNoNode) {
				return r, err
			}
			r.fromList(names, err)
		}
	}
	return r, nil
}

// watchRoot watches a missing root's creation. A root created meanwhile
// is read again.
func (s *oneShotSource) watchRoot(ctx context.Context, req request) (result, error) {
	if !s.arm(req.path, wantData) {
		return result{request: req}, nil
	}
	ok, _, ch, err := s.c.client.ExistsW(ctx, req.path)
	if err != nil {
		s.disarm(req.path, wantData)
		return result{request: req}, err
	}
	s.wait(req.path, wantData, ch)
	if ok {
		return s.readOne(ctx, request{path: req.path, want: wantData})
	}
	return result{request: req}, nil
}

// arm claims the watch of kind w on p; false if it is set already.
func (s *oneShotSource) arm(p string, w want) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.armed[p]&w != 0 {
		return false
	}
	s.armed[p] |= w
	return true
}

func (s *oneShotSource) disarm(p string, w want) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.armed[p] &^= w; s.armed[p] == 0 {
		delete(s.armed, p)
	}
}

// wait turns the one event of a watch into a read of its node, which
// sets the watch again.
func (s *oneShotSource) wait(p string, kind want, ch <-chan zk.Event) {
	// Ends with the watch's one event, or when the source is closed.
	go func() {
		var ev zk.Event
		select {
		case ev = <-ch:
		case <-s.stop:
			return
		}
		s.disarm(p, kind)
		w := wantData
		switch ev.Type {
		case zk.EventNodeChildrenChanged:
			w = wantList
		case zk.EventNotWatching: // a new session: set both again
			w = wantData | wantList
		}
		s.c.in.read(p, w)
	}()
}

// catchUp is not needed: the client sets one-shot watches again relative
// to the last zxid it saw, and the server fires those that changed.
func (s *oneShotSource) catchUp(context.Context, int64, []string, []string) ([]request, error) {
	return nil, nil
}

// close leaves the watches to fire into nothing, and ends the goroutines
// that wait for them: one-shot watches cannot be removed on a server
// before 3.6, and each fires at most once.
func (s *oneShotSource) close(context.Context) { close(s.stop) }

// listsEveryNode is true: a node's child watch, set by reading its
// children, is what tells of a child created later.
func (s *oneShotSource) listsEveryNode() bool { return true }
