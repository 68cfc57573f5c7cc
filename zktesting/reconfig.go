package zktesting

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// superUser and superPassword are the superuser of an ensemble started
// WithReconfig: ZooKeeper runs a reconfig only for a superuser (or with
// skipACL, which would turn ACLs off for every test).
const (
	superUser     = "super"
	superPassword = "zktesting"
)

// superDigestOpt is the system property that makes superUser a superuser:
// ZooKeeper's digest of "user:password" (SHA-1, base64).
func superDigestOpt() string {
	sum := sha1.Sum([]byte(superUser + ":" + superPassword))
	return "-Dzookeeper.DigestAuthenticationProvider.superDigest=" + superUser + ":" +
		base64.StdEncoding.EncodeToString(sum[:])
}

// reconfigRetry is the pause between two tries of a reconfig that the
// ensemble refused for now (a joiner not synced yet, another reconfig
// under way).
const reconfigRetry = 200 * time.Millisecond

// AddMembers starts n new servers on free loopback ports and adds them to
// the ensemble as participants by an incremental reconfig, and returns
// their member indices (the next ones in order). Each new server starts
// with the current configuration and itself, joins the leader as a
// non-voting follower, and votes once the reconfig is committed, which is
// when AddMembers returns. It needs an ensemble started WithReconfig
// (else ErrNotReconfigurable). If ctx has no deadline, the whole call
// gets 60 s per new member. A server that was started but could not be
// added keeps running until Close, as a member outside the configuration.
func (e *Ensemble) AddMembers(ctx context.Context, n int) ([]int, error) {
	if !e.opts.reconfig {
		return nil, ErrNotReconfigurable
	}
	if n < 1 {
		return nil, fmt.Errorf("%w: %d", ErrInvalidSize, n)
	}
	ctx, cancel := withDefaultTimeout(ctx, time.Duration(n)*defaultStartTimeout)
	defer cancel()
	e.reconfig.Lock()
	defer e.reconfig.Unlock()
	added, joining, err := e.startJoiners(ctx, n)
	if err != nil {
		return added, err
	}
	if err := e.runReconfig(ctx, joining, nil); err != nil {
		return added, err
	}
	e.membersMu.Lock()
	for _, i := range added {
		e.inConfig[i] = true
	}
	e.membersMu.Unlock()
	return added, nil
}

// RemoveMembers removes members from the ensemble's configuration by an
// incremental reconfig, and returns once it is committed. The removed
// servers keep running, outside the ensemble (they serve no client), until
// StopMember or Close. Removing the leader makes the others elect one. It
// needs an ensemble started WithReconfig (else ErrNotReconfigurable); an
// index out of range is ErrNoMember. If ctx has no deadline, it gets 60 s.
func (e *Ensemble) RemoveMembers(ctx context.Context, members ...int) error {
	if !e.opts.reconfig {
		return ErrNotReconfigurable
	}
	leaving := make([]string, len(members))
	for k, i := range members {
		if e.Member(i) == nil {
			return fmt.Errorf("%w: %d of %d", ErrNoMember, i, len(e.all()))
		}
		leaving[k] = strconv.Itoa(i + 1)
	}
	ctx, cancel := withDefaultTimeout(ctx, defaultStartTimeout)
	defer cancel()
	e.reconfig.Lock()
	defer e.reconfig.Unlock()
	if err := e.runReconfig(ctx, nil, leaving); err != nil {
		return err
	}
	e.membersMu.Lock()
	for _, i := range members {
		e.inConfig[i] = false
	}
	e.membersMu.Unlock()
	return nil
}

// startJoiners starts n new members, each configured with the members in
// the configuration and itself, and returns their indices and their
// server lines for the reconfig.
func (e *Ensemble) startJoiners(ctx context.Context, n int) (added []int, joining []string, err error) {
	ports, release, err := freePorts(3 * n)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	e.membersMu.Lock()
	var current []peer
	for i, p := range e.peers {
		if e.inConfig[i] {
			current = append(current, p)
		}
	}
	var joiners []*Server
	for k := range n {
		i := len(e.members)
		p := peer{id: i + 1, client: ports[3*k], quorum: ports[3*k+1], election: ports[3*k+2]}
		s, err := newServer(e.opts, filepath.Join(e.dir, fmt.Sprintf("member%d", i+1)), false, p.client, p.id,
			append(append([]peer(nil), current...), p))
		if err != nil {
			e.membersMu.Unlock()
			return added, nil, err
		}
		e.members, e.peers, e.inConfig = append(e.members, s), append(e.peers, p), append(e.inConfig, false)
		added, joining, joiners = append(added, i), append(joining, p.line()), append(joiners, s)
	}
	e.membersMu.Unlock()
	release()
	errs := make([]error, len(joiners))
	var wg sync.WaitGroup
	for k, s := range joiners {
		wg.Add(1)
		// Ends when the new member is ready or has failed to start.
		go func() {
			defer wg.Done()
			errs[k] = s.start(ctx)
		}()
	}
	wg.Wait()
	return added, joining, errors.Join(errs...)
}

// runReconfig runs one incremental reconfig as the superuser, through the
// members in the configuration, trying again while the ensemble refuses it
// for now (a joiner not yet synced: no quorum of the new configuration;
// another reconfig under way; a lost connection) until ctx ends.
func (e *Ensemble) runReconfig(ctx context.Context, joining, leaving []string) error {
	var addrs []string
	e.membersMu.Lock()
	for i, m := range e.members {
		if e.inConfig[i] {
			addrs = append(addrs, m.Addr())
		}
	}
	e.membersMu.Unlock()
	conn, _, err := zk.Connect(addrs, probeSessionTimeout, zk.WithLogger(zkLogger{e.opts.logger}), zk.WithLogInfo(false))
	if err != nil {
		return fmt.Errorf("zktesting: reconfig: %w", err)
	}
	defer conn.Close()
	if err := conn.AddAuth("digest", []byte(superUser+":"+superPassword)); err != nil {
		return fmt.Errorf("zktesting: reconfig: %w", err)
	}
	ticker := time.NewTicker(reconfigRetry)
	defer ticker.Stop()
	for {
		_, err := conn.IncrementalReconfig(joining, leaving, -1)
		if err == nil || !reconfigRetryable(err) {
			if err != nil {
				return fmt.Errorf("zktesting: reconfig (add %v, remove %v): %w", joining, leaving, err)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("zktesting: reconfig (add %v, remove %v): %w (last: %w)", joining, leaving, ctx.Err(), err)
		case <-ticker.C:
		}
	}
}

// reconfigRetryable tells a refusal for now from a reconfig that cannot
// run. go-zookeeper has no sentinels for ZooKeeper's NEWCONFIGNOQUORUM
// (-13) and RECONFIGINPROGRESS (-14): it reports "unknown error: -13".
func reconfigRetryable(err error) bool {
	for _, e := range []error{zk.ErrConnectionClosed, zk.ErrNoServer, zk.ErrSessionMoved} {
		if errors.Is(err, e) {
			return true
		}
	}
	msg := err.Error()
	return strings.HasSuffix(msg, "unknown error: -13") || strings.HasSuffix(msg, "unknown error: -14")
}

// withDefaultTimeout bounds ctx by d unless it has a deadline.
func withDefaultTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}
