package leader

import (
	"context"
	"errors"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Observation is what Watch sees: the leader of the election, or that
// none leads.
type Observation struct {
	// Leader is the leading participant (Leader.Leader is true), or the
	// zero Participant when no participant leads.
	Leader Participant
	// FencingToken is the creation zxid of the leader's node, the token
	// its Leadership carries (0 when none leads), so that an observer can
	// tell one term from the next of the same participant id.
	FencingToken int64
}

// HasLeader reports whether a participant leads.
func (o Observation) HasLeader() bool { return o.Leader.Node != "" }

// Watch follows who leads the election. The returned channel receives
// the leader at once (read before Watch returns), then a value each time
// the leader changes (another node, or none). Only the latest value is
// kept: a reader that falls behind gets the newest, never a backlog. Every
// value names a node that was first in the election when read. The
// channel is closed when ctx ends or the client is closed. While the
// server cannot be reached the last value stands; Watch reads again once
// it can. Watch fails, with nothing started, when the first read fails:
// the client closed (ErrClosed), ctx ended, or the client's retry policy
// gave up.
//
// A leader is watched through its own node, so a participant joining or
// leaving behind it costs nothing; a change of leader costs two requests
// after its notification (the listing and the read of the new first
// node).
func (o *Observer) Watch(ctx context.Context) (<-chan Observation, error) {
	seen, changed, err := o.look(ctx)
	if err != nil {
		return nil, recipe.Errorf("leader: watch %s: %w", o.e.path, err)
	}
	return recipe.Follow(ctx, seen, changed, o.lookAgain), nil
}

// lookAgain looks until a look succeeds, waiting longer after each
// failure; it reports no more when ctx ends or the client is closed.
func (o *Observer) lookAgain(ctx context.Context) (seen Observation, ok bool, changed <-chan zk.Event, more bool) {
	for backoff := observeRetryMin; ; backoff = min(2*backoff, observeRetryMax) {
		var err error
		if seen, changed, err = o.look(ctx); err == nil {
			return seen, true, changed, true
		}
		if errors.Is(err, framework.ErrClosed) || recipe.Sleep(ctx, backoff) != nil {
			return Observation{}, false, nil, false
		}
	}
}

// Bounds of the wait before looking again after a failed look.
const (
	observeRetryMin = 50 * time.Millisecond
	observeRetryMax = 2 * time.Second
)

// look reads who leads and returns a channel that receives when that may
// have changed: the leader's own node, or, with no leader, the
// election's children (or its path's existence). It says "no leader" only
// for an election seen empty by a listing that set the watch.
func (o *Observer) look(ctx context.Context) (Observation, <-chan zk.Event, error) {
	for {
		seen, watch, err := o.lookFirst(ctx)
		if err != nil || seen.HasLeader() {
			return seen, watch, err
		}
		names, _, watch, err := o.e.client.ChildrenW(ctx, o.e.path)
		switch {
		case recipe.IsNoNode(err):
			watch, created, err := o.watchCreation(ctx)
			if err != nil || !created {
				return Observation{}, watch, err
			}
			continue // created meanwhile: look again
		case err != nil:
			return Observation{}, nil, err
		case len(names) == 0:
			return Observation{}, watch, nil
		}
		// Nodes came (or the listed ones went, and newer ones stand)
		// between the two listings: look again. The children's watch
		// fires once and is then forgotten.
		if ctx.Err() != nil {
			return Observation{}, nil, ctx.Err()
		}
	}
}

// lookFirst reads the first node of the election that is still there,
// with a watch on it; no leader when every listed node has gone.
func (o *Observer) lookFirst(ctx context.Context) (Observation, <-chan zk.Event, error) {
	paths, err := o.e.list(ctx)
	if err != nil {
		return Observation{}, nil, err
	}
	for _, p := range paths {
		data, stat, watch, err := o.e.client.GetW(ctx, p)
		switch {
		case err == nil:
			return Observation{Leader: Participant{ID: string(data), Node: p, Leader: true}, FencingToken: stat.Czxid}, watch, nil
		case !recipe.IsNoNode(err):
			return Observation{}, nil, err
		}
	}
	return Observation{}, nil, nil
}

// watchCreation watches for the election's path to be created; created
// says it exists already.
func (o *Observer) watchCreation(ctx context.Context) (watch <-chan zk.Event, created bool, err error) {
	ok, _, watch, err := o.e.client.ExistsW(ctx, o.e.path)
	return watch, ok, err
}
