package zktesting

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Ensemble is n ZooKeeper servers on 127.0.0.1 that form one quorum. Members
// are numbered from 0; member i has myid i+1. Its methods are safe for
// concurrent use.
type Ensemble struct {
	membersMu sync.Mutex
	members   []*Server  // grown by AddMembers
	peers     []peer     // by member
	inConfig  []bool     // by member: in the configuration (WithReconfig)
	opts      options    // for the members AddMembers starts
	reconfig  sync.Mutex // one reconfiguration at a time

	dir       string
	ownDir    bool
	tick      time.Duration
	syncLimit int
	links     peerLinks // nil unless WithPeerFaults

	isolatedMu sync.Mutex
	isolated   []bool // by member: Isolate'd and not Rejoin'ed

	closeOnce sync.Once
	closeErr  error
}

// StartEnsemble starts an ensemble of n servers, each with a free client
// port and free quorum and election ports on loopback
// (server.N=127.0.0.1:quorum:election), and returns once every member is
// ready. If ctx has no deadline, each member gets 60 s. An ensemble of one
// runs standalone. Ports picked free that another process takes before a
// member binds them are picked again, as Start does.
func StartEnsemble(ctx context.Context, n int, opts ...Option) (*Ensemble, error) {
	if n < 1 {
		return nil, fmt.Errorf("%w: %d", ErrInvalidSize, n)
	}
	o, err := newOptions(opts)
	if err != nil {
		return nil, err
	}
	if o.port != 0 {
		return nil, fmt.Errorf("%w: an ensemble's ports are picked free", ErrInvalidPort)
	}
	return withFreshPorts(o, func() (*Ensemble, error) { return startEnsemble(ctx, n, o) })
}

// startEnsemble starts an ensemble as StartEnsemble does, once.
func startEnsemble(ctx context.Context, n int, o options) (*Ensemble, error) {
	ports, release, err := freePorts(3 * n)
	if err != nil {
		return nil, err
	}
	defer release() // if not released before the members start
	dir, ownDir, err := serverDir(o.dir, "zktesting-ensemble-")
	if err != nil {
		return nil, err
	}
	if o.reconfig {
		o.peerFaults = false // the servers rewrite each other's configuration: no proxies in it
		o.javaOpts = append([]string{superDigestOpt()}, o.javaOpts...)
	}
	e := &Ensemble{dir: dir, ownDir: ownDir, tick: o.tick, syncLimit: o.syncLimitOf(), isolated: make([]bool, n)}
	peers := peersOn(ports, n, o.reconfig)
	if o.peerFaults && n > 1 {
		if e.links, err = newPeerLinks(peers); err != nil {
			_ = e.Close()
			return nil, err
		}
		// A member that was isolated looks for a leader at intervals that
		// double up to a minute by default; a second lets it rejoin soon.
		o.javaOpts = append([]string{"-Dzookeeper.fastleader.maxNotificationInterval=1000"}, o.javaOpts...)
	}
	release()
	if n > 1 {
		// A member's log says when it looks for a leader, follows or
		// leads, for a failed test to show (the rest stays at warn).
		o.javaOpts = append([]string{"-Dorg.slf4j.simpleLogger.log.org.apache.zookeeper.server.quorum.QuorumPeer=info"}, o.javaOpts...)
	}
	e.peers, e.opts = peers, o
	if err := e.addMembers(ports); err != nil {
		_ = e.Close()
		return nil, err
	}
	if err := e.startAll(ctx); err != nil {
		_ = e.Close()
		return nil, err
	}
	return e, nil
}

// peersOn lays n members out on ports, three each: the client's (named in
// the configuration only for a reconfigurable ensemble), the quorum's and
// the election's.
func peersOn(ports []int, n int, reconfig bool) []peer {
	peers := make([]peer, n)
	for i := range peers {
		peers[i] = peer{id: i + 1, quorum: ports[3*i+1], election: ports[3*i+2]}
		if reconfig {
			peers[i].client = ports[3*i]
		}
	}
	return peers
}

// addMembers makes a server of each of e's peers, not started, each
// seeing the others through the peer links if e has them.
func (e *Ensemble) addMembers(ports []int) error {
	for i := range e.peers {
		memberDir := filepath.Join(e.dir, fmt.Sprintf("member%d", i+1))
		view := e.peers
		if e.links != nil {
			view = e.links.view(i, e.peers)
		}
		s, err := newServer(e.opts, memberDir, false, ports[3*i], i+1, view)
		if err != nil {
			return err
		}
		e.members = append(e.members, s)
		e.inConfig = append(e.inConfig, true)
	}
	return nil
}

// startAll starts every member at once (none is ready before a quorum is)
// and waits for each; the first failure cuts the others' wait short.
func (e *Ensemble) startAll(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	members := e.all()
	errs := make([]error, len(members))
	var wg sync.WaitGroup
	for i, m := range members {
		wg.Add(1)
		// Ends when member i is ready or has failed to start.
		go func() {
			defer wg.Done()
			if errs[i] = m.start(ctx); errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Addrs returns the client addresses of the members, in member order.
func (e *Ensemble) Addrs() []string {
	members := e.all()
	addrs := make([]string, len(members))
	for i, m := range members {
		addrs[i] = m.Addr()
	}
	return addrs
}

// ConnectString returns the members' client addresses joined by commas, as
// ZooKeeper clients take them.
func (e *Ensemble) ConnectString() string { return strings.Join(e.Addrs(), ",") }

// Member returns member i, or nil if there is no such member.
func (e *Ensemble) Member(i int) *Server {
	e.membersMu.Lock()
	defer e.membersMu.Unlock()
	if i < 0 || i >= len(e.members) {
		return nil
	}
	return e.members[i]
}

// StopMember stops member i (see Server.Stop).
func (e *Ensemble) StopMember(i int) error {
	m := e.Member(i)
	if m == nil {
		return fmt.Errorf("%w: %d of %d", ErrNoMember, i, len(e.all()))
	}
	return m.Stop()
}

// StartMember starts member i again, with its data, and returns once it
// serves, which needs a quorum of the members running. Starting a running
// member does nothing.
func (e *Ensemble) StartMember(ctx context.Context, i int) error {
	m := e.Member(i)
	if m == nil {
		return fmt.Errorf("%w: %d of %d", ErrNoMember, i, len(e.all()))
	}
	return m.start(ctx)
}

// Leader returns the index of the member that leads, asking each running
// member's srvr four-letter word (a standalone server counts as leader). It
// waits while an election runs, until ctx ends.
func (e *Ensemble) Leader(ctx context.Context) (int, error) {
	ticker := time.NewTicker(probeInterval)
	defer ticker.Stop()
	for {
		for i, m := range e.all() {
			if m.PID() == 0 {
				continue
			}
			if md := mode(ctx, m.Addr()); md == "leader" || md == "standalone" {
				return i, nil
			}
		}
		select {
		case <-ctx.Done():
			return -1, fmt.Errorf("zktesting: no leader: %w", ctx.Err())
		case <-ticker.C:
		}
	}
}

// Close stops every member and removes the ensemble's directory if
// StartEnsemble made it. Later calls return the first call's result.
func (e *Ensemble) Close() error {
	e.closeOnce.Do(func() {
		members := e.all()
		errs := make([]error, len(members)+1)
		var wg sync.WaitGroup
		for i, m := range members {
			wg.Add(1)
			// Ends when member i has stopped.
			go func() {
				defer wg.Done()
				errs[i] = m.Close()
			}()
		}
		wg.Wait()
		e.links.close()
		if e.ownDir {
			errs[len(members)] = os.RemoveAll(e.dir)
		}
		e.closeErr = errors.Join(errs...)
	})
	return e.closeErr
}

// all returns the members, in order.
func (e *Ensemble) all() []*Server {
	e.membersMu.Lock()
	defer e.membersMu.Unlock()
	return slices.Clone(e.members)
}
