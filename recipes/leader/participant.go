package leader

import (
	"context"
	"fmt"
	"sync"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Participant is one participant of an election, as Curator's Participant
// lists it, with the path of its node.
type Participant struct {
	// ID is the participant id: the data of its node, as text. A Curator
	// LeaderSelector without an id writes its host's address.
	ID string
	// Node is the path of the participant's node, relative to the
	// client's namespace.
	Node string
	// Leader is true for the participant whose node is first in the
	// election's order.
	Leader bool
}

// Lock names of the two kinds of election, as Curator names them: a
// LeaderLatch's nodes are <path>/_c_<uuid>-latch-<seq>, a LeaderSelector's
// (a mutex at the path) <path>/_c_<uuid>-lock-<seq>.
const (
	latchLockName    = zkpath.LatchName
	selectorLockName = zkpath.LockName
)

// election reads the nodes of one election: the children of path, ordered
// as Curator orders them for lockName.
type election struct {
	client   *framework.Client
	path     string
	lockName string
}

// member is one node of an election, read.
type member struct {
	node  string // path
	id    string
	czxid int64
}

// list returns the paths of the election's nodes in Curator's order
// (LockInternals.getParticipantNodes): none when the path does not exist.
func (e election) list(ctx context.Context) ([]string, error) {
	names, _, err := e.client.Children(ctx, e.path)
	if err != nil {
		if recipe.IsNoNode(err) {
			return nil, nil
		}
		return nil, err
	}
	zkpath.SortNodes(names, e.lockName)
	paths := make([]string, len(names))
	for i, name := range names {
		paths[i] = zkpath.Join(e.path, name)
	}
	return paths, nil
}

// read reads the data of every node of paths, keeping their order and
// leaving out those gone by then, as Curator's participantForPath does.
// go-zookeeper has no multi-read: the reads are sent together, each on its
// own goroutine, so that they share one round trip.
func (e election) read(ctx context.Context, paths []string) ([]member, error) {
	type answer struct {
		m   member
		ok  bool
		err error
	}
	answers := make([]answer, len(paths))
	var wg sync.WaitGroup
	for i, p := range paths {
		// Ends with the read's answer or ctx.
		wg.Go(func() {
			data, stat, err := e.client.Get(ctx, p)
			switch {
			case err == nil:
				answers[i] = answer{m: member{node: p, id: string(data), czxid: stat.Czxid}, ok: true}
			case !recipe.IsNoNode(err):
				answers[i].err = err
			}
		})
	}
	wg.Wait()
	members := make([]member, 0, len(paths))
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

// participants lists the election as Curator's getParticipants does: in
// its order, the first node still there marked as the leader.
func (e election) participants(ctx context.Context) ([]Participant, error) {
	paths, err := e.list(ctx)
	if err != nil {
		return nil, fmt.Errorf("leader: participants of %s: %w", e.path, err)
	}
	members, err := e.read(ctx, paths)
	if err != nil {
		return nil, fmt.Errorf("leader: participants of %s: %w", e.path, err)
	}
	ps := make([]Participant, len(members))
	for i, m := range members {
		ps[i] = Participant{ID: m.id, Node: m.node, Leader: i == 0}
	}
	return ps, nil
}

// leader returns the first node of the election that is still there when
// read, as Curator's getLeader does, or ErrNoLeader; unlike Curator, never
// a made-up participant.
func (e election) leader(ctx context.Context) (Participant, error) {
	paths, err := e.list(ctx)
	if err != nil {
		return Participant{}, fmt.Errorf("leader: leader of %s: %w", e.path, err)
	}
	for _, p := range paths {
		data, _, err := e.client.Get(ctx, p)
		switch {
		case err == nil:
			return Participant{ID: string(data), Node: p, Leader: true}, nil
		case !recipe.IsNoNode(err):
			return Participant{}, fmt.Errorf("leader: leader of %s: %w", e.path, err)
		}
	}
	return Participant{}, fmt.Errorf("%w at %s", ErrNoLeader, e.path)
}
