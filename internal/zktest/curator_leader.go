package zktest

import (
	"context"
	"fmt"
	"time"
)

// CuratorParticipant is a participant of an election as Curator's getParticipants lists it.
type CuratorParticipant struct {
	ID     string
	Leader bool
}

// LeaderLatchParticipants returns LeaderLatch.getParticipants of the latch election at path.
func (c *Curator) LeaderLatchParticipants(ctx context.Context, path string) ([]CuratorParticipant, error) {
	return c.electionParticipants(ctx, "leaderlatch-participants", path)
}

// LeaderSelectorStart starts a Curator LeaderSelector on path with id for handle, auto-requeued;
// each time it leads, its takeLeadership waits for LeaderSelectorRelease (or an interruption:
// Curator's LeaderSelectorListenerAdapter cancels leadership on SUSPENDED and LOST).
func (c *Curator) LeaderSelectorStart(ctx context.Context, handle, path, id string) error {
	_, err := c.Do(ctx, "leaderselector-start", handle, path, id)
	return err
}

// LeaderSelectorAwait waits at most timeout for the next term of handle's selector to begin
// (terms begun before and not yet awaited count); it reports false when the time ran out.
func (c *Curator) LeaderSelectorAwait(ctx context.Context, handle string, timeout time.Duration) (bool, error) {
	payload, err := c.Do(ctx, "leaderselector-await", handle, curatorMillis(timeout))
	return payload == "leader", err
}

// LeaderSelectorRelease makes the current (or next) term of handle's selector end.
func (c *Curator) LeaderSelectorRelease(ctx context.Context, handle string) error {
	_, err := c.Do(ctx, "leaderselector-release", handle)
	return err
}

// LeaderSelectorHas reports handle's selector's hasLeadership.
func (c *Curator) LeaderSelectorHas(ctx context.Context, handle string) (bool, error) {
	payload, err := c.Do(ctx, "leaderselector-has", handle)
	return payload == "true", err
}

// LeaderSelectorClose closes handle's selector, interrupting a term under way.
func (c *Curator) LeaderSelectorClose(ctx context.Context, handle string) error {
	_, err := c.Do(ctx, "leaderselector-close", handle)
	return err
}

// LeaderSelectorParticipants returns LeaderSelector.getParticipants of the selector election
// at path.
func (c *Curator) LeaderSelectorParticipants(ctx context.Context, path string) ([]CuratorParticipant, error) {
	return c.electionParticipants(ctx, "leaderselector-participants", path)
}

// electionParticipants decodes the peer's participants: each id behind "*" for the leader,
// "-" for the others.
func (c *Curator) electionParticipants(ctx context.Context, verb, path string) ([]CuratorParticipant, error) {
	xs, err := c.participants(ctx, verb, path)
	if err != nil {
		return nil, err
	}
	ps := make([]CuratorParticipant, len(xs))
	for i, x := range xs {
		if x == "" || (x[0] != '*' && x[0] != '-') {
			return nil, fmt.Errorf("zktest: curator %s: participant %q", verb, x)
		}
		ps[i] = CuratorParticipant{ID: x[1:], Leader: x[0] == '*'}
	}
	return ps, nil
}
