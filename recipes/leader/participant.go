package leader

import (
	"context"
	"fmt"

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

// list returns the paths of the election's nodes in Curator's order
// (LockInternals.getParticipantNodes): none when the path does not exist.
func (e election) list(ctx context.Context) ([]string, error) {
	return recipe.Queue(ctx, e.client, e.path, func(names []string) { zkpath.SortNodes(names, e.lockName) }, nil)
}

// participants lists the election as Curator's getParticipants does: in
// its order, the first node still there marked as the leader.
func (e election) participants(ctx context.Context) ([]Participant, error) {
	paths, err := e.list(ctx)
	if err != nil {
		return nil, fmt.Errorf("leader: participants of %s: %w", e.path, err)
	}
	members, err := recipe.ReadMembers(ctx, e.client, paths)
	if err != nil {
		return nil, fmt.Errorf("leader: participants of %s: %w", e.path, err)
	}
	ps := make([]Participant, len(members))
	for i, m := range members {
		ps[i] = Participant{ID: string(m.Data), Node: m.Path, Leader: i == 0}
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
