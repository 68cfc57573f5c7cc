package mutex

import "github.com/zkrecipes/zkrecipes/recipes/internal/recipe"

// Participant is one node queued on a lock, as Curator's
// getParticipantNodes lists it, with the node's data.
type Participant struct {
	// Node is the path of the lock node, relative to the client's
	// namespace.
	Node string
	// ID is the node's data, as text: the participant's id (WithData; a
	// Curator process writes its client's default data, its IP address),
	// empty if none.
	ID string
}

// participants turns members read from a lock's queue into participants,
// in their order.
func participants(members []recipe.Member) []Participant {
	ps := make([]Participant, len(members))
	for i, m := range members {
		ps[i] = Participant{Node: m.Path, ID: string(m.Data)}
	}
	return ps
}
