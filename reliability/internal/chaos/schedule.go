package chaos

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// Link is a fault-injecting connection in front of a client, as
// internal/zktest's Proxy is.
type Link interface {
	Cut()
	Pause()
	// PauseRequests drops what the client sends while the server's
	// packets still reach it; PauseReplies the reverse. Resume ends both.
	PauseRequests()
	PauseReplies()
	Resume()
	SetDelay(d time.Duration)
	// DropNextCreateReply lets the next create through to the server,
	// swallows its answer and cuts the connection.
	DropNextCreateReply()
	// DropNextReply does the same to the next request of type op.
	DropNextReply(op int32)
}

// The kinds of fault a Schedule injects.
const (
	FaultCut             = "cut"              // every connection of one client is closed
	FaultLostReply       = "lost-reply"       // the answer to one client's next create is lost, and its connection cut
	FaultExpire          = "expire"           // one client is partitioned past its session timeout
	FaultSlow            = "slow"             // one client's packets are delayed for a while
	FaultFollowerRestart = "follower-restart" // a follower is stopped and started again
	FaultLeaderRestart   = "leader-restart"   // the leader is killed, and started again once another leads
	FaultLostSet         = "lost-set"         // the answer to one client's next set (a versioned write) is lost
	FaultLostMulti       = "lost-multi"       // the answer to one client's next multi is lost
	FaultLostAuth        = "lost-auth"        // one client's connections are cut, and the answer to its next auth lost
	FaultOneWayRequests  = "oneway-requests"  // one client's requests are dropped past its session timeout, while the server's packets reach it
	FaultOneWayReplies   = "oneway-replies"   // the server's packets to one client are dropped past its session timeout, while its requests arrive
	FaultFollowerCut     = "follower-cut"     // a follower is cut off from the other members past the session timeout, while its clients reach it
	// A member is restarted with a lower maxSessionTimeout (the one
	// lowered before gets its limit back first) and every client's
	// connections are cut: sessions that resume on it are granted less,
	// and counted from the reconnect with it.
	FaultShrinkGrant = "shrink-grant"
)

// faultKinds are the kinds of fault a Schedule injects, each once a round.
var faultKinds = []string{
	FaultCut, FaultLostReply, FaultExpire, FaultSlow, FaultFollowerRestart, FaultLeaderRestart,
	FaultLostSet, FaultLostMulti, FaultLostAuth, FaultOneWayRequests, FaultOneWayReplies, FaultFollowerCut,
	FaultShrinkGrant,
}

// FaultKinds returns the kinds of fault a Schedule injects.
func FaultKinds() []string { return slices.Clone(faultKinds) }

// packetFaults are the kinds of fault the proxy injects by picking a
// packet (a request's answer to swallow), which it cannot do on a TLS
// connection.
var packetFaults = []string{FaultLostReply, FaultLostSet, FaultLostMulti, FaultLostAuth}

// TLSFaultKinds returns the kinds of fault a Schedule can inject into
// clients that speak TLS: FaultKinds but the lost answers, which the
// proxy picks from packets that TLS hides from it.
func TLSFaultKinds() []string {
	return slices.DeleteFunc(FaultKinds(), func(k string) bool { return slices.Contains(packetFaults, k) })
}

// Timing of the faults.
const (
	faultGapMin   = 500 * time.Millisecond // between two faults
	faultGapMax   = 2 * time.Second
	slowFor       = 3 * time.Second // a slow link lasts this long
	slowDelayMax  = 150 * time.Millisecond
	memberDown    = 2 * time.Second // a stopped follower stays down this long
	memberStart   = 2 * time.Minute // bound on starting a member again
	leaderTimeout = time.Minute     // bound on finding the leader
	expireMargin  = 2 * time.Second // a partition lasts the session timeout and this
	holderWait    = 2 * time.Second // to find a client that holds, for a partition
	holderPoll    = 5 * time.Millisecond
)

// Schedule injects faults into an ensemble and the links of its clients,
// one at a time, in rounds that each inject every kind once in a random
// order.
type Schedule struct {
	Ensemble       *zktesting.Ensemble
	Links          [][]Link      // of each client, one per member
	SessionTimeout time.Duration // of the clients
	Seed           uint64
	Log            *slog.Logger
	// Clock stamps the partitions of FaultExpire, on the ledger's clock.
	Clock *Clock
	// Holders names the holders of each client, as the workers of the
	// client name themselves (a worker's Holder is the name, or the name
	// and "/" and its part), so that the report can tell which holds a
	// partition interrupted.
	Holders []string
	// Holding, if set, tells whether a client (by its name in Holders)
	// holds something right now: a partition past the session timeout
	// then goes to a client that holds, so that the session expires under
	// a holder.
	Holding func(client string) bool
	// ShrunkTimeout is the maxSessionTimeout of FaultShrinkGrant, below
	// the ensemble's own.
	ShrunkTimeout time.Duration
	// Kinds are the kinds of fault injected, each once a round; nil:
	// FaultKinds().
	Kinds []string

	shrunk int // the member+1 whose limit FaultShrinkGrant lowered; 0: none

	mu         sync.Mutex
	counts     map[string]int
	expiries   []Expiry
	firstRound chan struct{} // closed once every kind has been injected; made on first use
}

// Expiry is a partition of one client longer than its session timeout.
type Expiry struct {
	// Holder names the client's holders (Schedule.Holders).
	Holder string `json:"holder"`
	// From is when the partition began, To when it ended.
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// Expiries returns the partitions FaultExpire made.
func (s *Schedule) Expiries() []Expiry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.expiries)
}

// Run injects faults until ctx ends, and returns once the last one is
// undone: every member running, no link paused or slow. Its error says
// which member could not be started again.
func (s *Schedule) Run(ctx context.Context) error {
	rnd := rand.New(rand.NewPCG(s.Seed, 0xfa17))
	kinds := slices.Clone(s.Kinds)
	if len(kinds) == 0 {
		kinds = FaultKinds()
	}
	for {
		rnd.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
		for _, kind := range kinds {
			pause(ctx, faultGapMin+time.Duration(rnd.Int64N(int64(faultGapMax-faultGapMin))))
			if ctx.Err() != nil {
				return nil
			}
			if err := s.inject(ctx, kind, rnd); err != nil {
				return fmt.Errorf("chaos: %s: %w", kind, err)
			}
		}
		s.mu.Lock()
		if first := s.firstRoundLocked(); !isClosed(first) {
			close(first)
		}
		s.mu.Unlock()
	}
}

// FirstRound returns a channel closed once every kind of fault has been
// injected, and undone, at least once.
func (s *Schedule) FirstRound() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.firstRoundLocked()
}

func (s *Schedule) firstRoundLocked() chan struct{} {
	if s.firstRound == nil {
		s.firstRound = make(chan struct{})
	}
	return s.firstRound
}

// Counts returns how many faults of each kind were injected.
func (s *Schedule) Counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.counts))
	for k, v := range s.counts {
		out[k] = v
	}
	return out
}

// inject runs one fault to its end. It waits out its own duration even if
// ctx ends, so that nothing stays broken.
func (s *Schedule) inject(ctx context.Context, kind string, rnd *rand.Rand) error {
	client := rnd.IntN(len(s.Links))
	if kind == FaultExpire || kind == FaultOneWayRequests {
		client = s.pickHolder(ctx, client, rnd)
	}
	links := s.Links[client]
	s.Log.Info("chaos: fault", "kind", kind, "client", client)
	s.count(kind)
	switch kind {
	case FaultExpire:
		s.partition(client, links, Link.Pause, true)
	case FaultOneWayRequests:
		// The session expires at the server: a holder learns it only
		// from its session lease, since the server's packets still come.
		s.partition(client, links, Link.PauseRequests, true)
	case FaultOneWayReplies:
		// The server hears the client all along; whether the session
		// survives depends on its reconnect attempts reaching the server.
		s.partition(client, links, Link.PauseReplies, false)
	case FaultFollowerCut:
		return s.cutFollower(ctx, rnd)
	case FaultFollowerRestart:
		return s.restart(ctx, false, rnd)
	case FaultLeaderRestart:
		return s.restart(ctx, true, rnd)
	case FaultShrinkGrant:
		return s.shrinkGrant(ctx, rnd)
	default:
		linkFault(kind, links, rnd)
	}
	return nil
}

// linkFault injects a fault of kind into a client's links: its current
// one, and the ones it may move to.
func linkFault(kind string, links []Link, rnd *rand.Rand) {
	switch kind {
	case FaultCut:
		for _, l := range links {
			l.Cut()
		}
	case FaultLostReply:
		// Each swallows the answer of the next create it carries.
		for _, l := range links {
			l.DropNextCreateReply()
		}
	case FaultLostSet, FaultLostMulti:
		op := zktest.OpSetData
		if kind == FaultLostMulti {
			op = zktest.OpMulti
		}
		for _, l := range links {
			l.DropNextReply(op)
		}
	case FaultLostAuth:
		// Credentials go out again on the next connection: cut it now, so
		// that there is one whose auth answer is lost.
		for _, l := range links {
			l.DropNextReply(zktest.OpSetAuth)
		}
		for _, l := range links {
			l.Cut()
		}
	case FaultSlow:
		d := time.Duration(1+rnd.Int64N(int64(slowDelayMax/time.Millisecond))) * time.Millisecond
		for _, l := range links {
			l.SetDelay(d)
		}
		time.Sleep(slowFor)
		for _, l := range links {
			l.SetDelay(0)
		}
	}
}

// pickHolder returns a client that holds something, looking for one for
// up to holderWait; fallback when none does.
func (s *Schedule) pickHolder(ctx context.Context, fallback int, rnd *rand.Rand) int {
	if s.Holding == nil || len(s.Holders) < len(s.Links) {
		return fallback
	}
	deadline := time.Now().Add(holderWait)
	for ctx.Err() == nil && time.Now().Before(deadline) {
		for _, c := range rnd.Perm(len(s.Links)) {
			if s.Holding(s.Holders[c]) {
				return c
			}
		}
		pause(ctx, holderPoll)
	}
	return fallback
}

// restart stops the leader or a follower, and starts it again: a follower
// after memberDown, the leader once another member leads.
func (s *Schedule) restart(ctx context.Context, leader bool, rnd *rand.Rand) error {
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), leaderTimeout)
	defer cancel()
	lead, err := s.Ensemble.Leader(lctx)
	if err != nil {
		return err
	}
	victim := lead
	if !leader {
		n := len(s.Ensemble.Addrs())
		victim = (lead + 1 + rnd.IntN(n-1)) % n
	}
	s.Log.Info("chaos: stopping member", "member", victim, "leader", leader)
	if err := s.Ensemble.StopMember(victim); err != nil {
		return err
	}
	if leader {
		if _, err := s.Ensemble.Leader(lctx); err != nil {
			s.Log.Warn("chaos: no new leader", "err", err)
		}
	} else {
		time.Sleep(memberDown)
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), memberStart)
	defer cancel()
	return s.Ensemble.StartMember(sctx, victim)
}

func (s *Schedule) count(kind string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.counts == nil {
		s.counts = make(map[string]int)
	}
	s.counts[kind]++
}

// shrinkGrant restarts a member with ShrunkTimeout as its
// maxSessionTimeout, after giving the member lowered before its limit
// back, then cuts every client's connections, so that some resume their
// sessions on the lowered member under the shorter grant.
func (s *Schedule) shrinkGrant(ctx context.Context, rnd *rand.Rand) error {
	victim := rnd.IntN(len(s.Ensemble.Addrs()))
	if prev := s.shrunk - 1; prev >= 0 && prev != victim {
		if err := s.restartWithLimit(ctx, prev, s.SessionTimeout); err != nil {
			return err
		}
	}
	if err := s.restartWithLimit(ctx, victim, s.ShrunkTimeout); err != nil {
		return err
	}
	s.shrunk = victim + 1
	for _, links := range s.Links {
		for _, l := range links {
			l.Cut()
		}
	}
	return nil
}

// restartWithLimit stops member i and starts it again with limit as its
// maxSessionTimeout.
func (s *Schedule) restartWithLimit(ctx context.Context, i int, limit time.Duration) error {
	s.Log.Info("chaos: restarting member with a session limit", "member", i, "max_session_timeout", limit)
	if err := s.Ensemble.Member(i).SetMaxSessionTimeout(limit); err != nil {
		return err
	}
	if err := s.Ensemble.StopMember(i); err != nil {
		return err
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), memberStart)
	defer cancel()
	return s.Ensemble.StartMember(sctx, i)
}
