package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/zktesting"
)

// cutFollower isolates a follower from the other members (the ensemble
// runs WithPeerFaults) for longer than the session timeout, while its
// clients still reach it: it answers them for about syncLimit × tickTime,
// then drops them, and the leader expires their sessions. The clients
// allow for that lag (framework.WithServerLag). It returns once the
// follower follows again.
func (s *Schedule) cutFollower(ctx context.Context, rnd *rand.Rand) error {
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), leaderTimeout)
	defer cancel()
	lead, err := s.Ensemble.Leader(lctx)
	if err != nil {
		return err
	}
	n := len(s.Ensemble.Addrs())
	victim := (lead + 1 + rnd.IntN(n-1)) % n
	s.Log.Info("chaos: isolating follower", "member", victim)
	if err := s.Ensemble.Isolate(victim); err != nil {
		return err
	}
	time.Sleep(s.SessionTimeout + expireMargin)
	if err := s.Ensemble.Rejoin(victim); err != nil {
		return err
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), memberStart)
	defer cancel()
	return awaitFollowing(sctx, s.Ensemble.Addrs()[victim])
}

// awaitFollowing waits until the member at addr follows a leader again.
func awaitFollowing(ctx context.Context, addr string) error {
	ticker := time.NewTicker(holderPoll * 10)
	defer ticker.Stop()
	for {
		out, err := zktesting.FourLetterWord(ctx, addr, "srvr")
		if err == nil && strings.Contains(out, "Mode: follower") {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("member %s does not follow again: %w (last look: %v)", addr, ctx.Err(), err)
		case <-ticker.C:
		}
	}
}

// partition pauses every link of a client, in both directions or one
// (pause), for longer than its session timeout, and records when if the
// session expires in such a partition.
func (s *Schedule) partition(client int, links []Link, pause func(Link), expires bool) {
	from := s.Clock.Now()
	for _, l := range links {
		pause(l)
	}
	time.Sleep(s.SessionTimeout + expireMargin)
	for _, l := range links {
		l.Resume()
	}
	if !expires {
		return
	}
	e := Expiry{From: from, To: s.Clock.Now()}
	if client < len(s.Holders) {
		e.Holder = s.Holders[client]
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expiries = append(s.expiries, e)
}
