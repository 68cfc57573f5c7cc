package zktesting

import (
	"fmt"
	"strconv"
	"time"
)

// peerLink is the pair of proxies through which one member reaches another.
type peerLink struct {
	quorum, election *peerProxy
}

// peerLinks are the proxies of an ensemble started WithPeerFaults:
// links[i][j] carries what member i sends to member j (nil for i == j).
type peerLinks [][]*peerLink

// newPeerLinks opens a quorum and an election proxy for every ordered pair
// of members, in front of the real ports of peers, and starts them.
func newPeerLinks(peers []peer) (peerLinks, error) {
	n := len(peers)
	links := make(peerLinks, n)
	for i := range n {
		links[i] = make([]*peerLink, n)
		for j := range n {
			if i == j {
				continue
			}
			q, err := listenPeerProxy("127.0.0.1:" + strconv.Itoa(peers[j].quorum))
			if err != nil {
				links.close()
				return nil, err
			}
			links[i][j] = &peerLink{quorum: q}
			e, err := listenPeerProxy("127.0.0.1:" + strconv.Itoa(peers[j].election))
			if err != nil {
				links.close()
				return nil, err
			}
			links[i][j].election = e
		}
	}
	for i := range n {
		for j := range n {
			if i != j {
				// Member j calls member i back through the reverse link.
				links[i][j].election.advertise = "127.0.0.1:" + strconv.Itoa(links[j][i].election.port())
				links[i][j].quorum.start()
				links[i][j].election.start()
			}
		}
	}
	return links, nil
}

// view returns the peer list of member i's zoo.cfg: its own real ports,
// and the proxies of its links for every other member.
func (l peerLinks) view(i int, peers []peer) []peer {
	out := make([]peer, len(peers))
	for j, p := range peers {
		out[j] = p
		if j != i {
			out[j].quorum = l[i][j].quorum.port()
			out[j].election = l[i][j].election.port()
		}
	}
	return out
}

// apply cuts every link to and from member i if i or the member at the
// other end is isolated, and heals it otherwise.
func (l peerLinks) apply(i int, isolated []bool) {
	for j := range l {
		if j == i {
			continue
		}
		cut := isolated[i] || isolated[j]
		for _, link := range []*peerLink{l[i][j], l[j][i]} {
			link.quorum.setCut(cut)
			link.election.setCut(cut)
		}
	}
}

// close stops every proxy.
func (l peerLinks) close() {
	for _, row := range l {
		for _, link := range row {
			if link == nil {
				continue
			}
			for _, p := range []*peerProxy{link.quorum, link.election} {
				if p != nil {
					p.close()
				}
			}
		}
	}
}

// Isolate cuts member i off from the other members: what it sends them on
// the quorum and election ports, and what they send it, is dropped, while
// the connections stay open, as in a network partition. Its clients still
// reach it. A follower goes on answering its clients until it notices the
// silence of its leader, after about syncLimit × tickTime (see
// [WithSyncLimit] and [Ensemble.ServerLag]); then it drops them and looks
// for a leader it cannot reach, while the others, if they keep a quorum,
// keep or elect a leader and expire the sessions of its clients. Isolating
// an isolated member does nothing; starting an isolated member
// (StartMember) waits for a quorum it cannot reach, until Rejoin or the
// end of its ctx. It needs [WithPeerFaults], else it
// returns ErrNoPeerFaults.
func (e *Ensemble) Isolate(i int) error { return e.setIsolated(i, true) }

// Rejoin ends the isolation of member i: its links to the other members
// are closed and opened afresh, and it follows the leader again once it
// has synchronised (see [Ensemble.Leader] to wait for it). Rejoining a
// member that is not isolated closes nothing. It needs [WithPeerFaults].
func (e *Ensemble) Rejoin(i int) error { return e.setIsolated(i, false) }

func (e *Ensemble) setIsolated(i int, cut bool) error {
	if e.Member(i) == nil {
		return fmt.Errorf("%w: %d of %d", ErrNoMember, i, len(e.all()))
	}
	if e.links == nil {
		return ErrNoPeerFaults
	}
	e.isolatedMu.Lock()
	defer e.isolatedMu.Unlock()
	if e.isolated[i] == cut {
		return nil
	}
	e.isolated[i] = cut
	e.links.apply(i, e.isolated)
	return nil
}

// ServerLag returns how long a follower of the ensemble may go on
// answering its clients after it has lost its leader, by the rule of
// framework.WithServerLag: syncLimit × tickTime + tickTime/2.
func (e *Ensemble) ServerLag() time.Duration {
	return time.Duration(e.syncLimit)*e.tick + e.tick/2
}
