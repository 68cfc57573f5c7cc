package leases

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// maxResumeTries bounds the reads and writes of a Resume that keeps
// meeting renewals of the holder it takes the lease over from.
const maxResumeTries = 3

// errRenewedMeanwhile says that the holder a Resume takes the lease over
// from renewed it between the Resume's read and its write: try again.
var errRenewedMeanwhile = errors.New("renewed by its holder meanwhile")

// Resume takes over the TTL lease at path, a lease that an earlier run of
// the holder's process acquired and whose node name it kept (see
// semaphore.Semaphore.Resume, which checks that path is one of its
// leases). It reads the node, whose stamp gives the time to live (the
// server does not tell it), and rewrites its stamp, naming itself as the
// holder, conditionally on the version it read: from then on, the returned
// Lease is the holder. The deadline starts anew, on this process's clock,
// from before the write was sent.
//
// Fencing: a take-over gives the lease a new token, the zxid of the
// Resume's write, which is higher than the token of every earlier holder
// of the node (the zxid that granted it, or an earlier take-over's zxid)
// and of every hold handed out before it; renewals keep a holder's token. A
// resource that keeps the highest token it has seen therefore refuses the
// earlier holder once the new one has used it. The earlier Lease, if its
// process still runs, watches its node: it sees the other holder's stamp,
// closes Lost and reports ErrTakenOver (an ErrLost) at once, and fails its
// renewals and releases from then on, deleting nothing.
//
// At most one Resume of a node wins: one that finds the node written by
// another holder between its read and its write (another Resume won the
// race) fails with ErrTakenOver, and takes nothing over. One that finds it
// renewed meanwhile by the holder it is taking over from tries again, a
// few times. A write whose answer was lost and that the server applied is
// recognised as the Resume's own; one whose outcome stays unknown (its
// answer lost and the node written since, or the Resume gave up waiting)
// gives an error wrapping framework.ErrOutcomeUnknown: Resume again.
//
// The node's name is a capability: whoever has it can take the lease.
// Keep it where only the job's own restarts find it.
//
// A node that is gone (expired on the server, or released) gives an error
// wrapping ErrLost: the permit has to be acquired again. A node that is
// not a TTL lease gives ErrInvalidArgument. Resume takes no guard: the
// node counts as a lease all along.
func Resume(ctx context.Context, client *framework.Client, path string, opts ...Option) (*Lease, error) {
	if err := recipe.CheckPath(client, path, ErrInvalidArgument); err != nil {
		return nil, err
	}
	o, err := recipe.Options(opts, ErrInvalidArgument)
	if err != nil {
		return nil, err
	}
	if o.maxHold > 0 {
		return nil, fmt.Errorf("%w: the bound of a TTL lease is its time to live, not WithMaxHold", ErrInvalidArgument)
	}
	for try := 1; ; try++ {
		l, err := resumeOnce(ctx, client, path, o)
		if !errors.Is(err, errRenewedMeanwhile) {
			return l, err
		}
		if try == maxResumeTries {
			return nil, fmt.Errorf("leases: resume %s: the holder is alive: %w (%d tries)", path, err, try)
		}
	}
}

func resumeOnce(ctx context.Context, client *framework.Client, path string, o options) (*Lease, error) {
	data, stat, err := client.Get(ctx, path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, fmt.Errorf("leases: resume %s: %w: the lease expired or was returned", path, ErrLost)
	}
	if err != nil {
		return nil, fmt.Errorf("leases: resume %s: %w", path, err)
	}
	// The server shows clients no TTL in a stat (its ephemeralOwner is 0):
	// the stamp tells it.
	stamp, _, ok := ParseStamp(data)
	if !ok || stamp.Mode != TTLMode || stat.EphemeralOwner != 0 {
		return nil, fmt.Errorf("%w: %s is not a TTL lease", ErrInvalidArgument, path)
	}
	ttl := stamp.Bound
	node := framework.Node{Path: path, Name: zkpath.Base(path), Session: client.Session()}
	if id, ok := zkpath.ProtectionID(node.Name); ok {
		node.ProtectionID = id
	}
	l := newLease(client, node, data, o)
	at := time.Now()
	written := l.stamp(TTLMode, ttl, at, stamp.Renewals+1)
	l.ttl = newTTLHold(ttl, stat.Version, written, at)
	// UniqueData: the stamp names the new Lease, so a write whose answer
	// was lost is recognised by the framework as the Resume's own.
	stat, err = client.Set(ctx, path, written, stat.Version, framework.UniqueData())
	if errors.Is(err, zk.ErrBadVersion) {
		err = l.resumeConflict(ctx, stamp.Holder)
	}
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return nil, fmt.Errorf("leases: resume %s: %w: the lease expired or was returned", path, ErrLost)
	case err != nil:
		return nil, fmt.Errorf("leases: resume %s: %w", path, err)
	}
	l.renewals = stamp.Renewals + 1
	l.ttl.version = stat.Version
	l.token = stat.Mzxid // the take-over's own zxid: see Resume
	l.observeTTL()
	l.startTTL()
	return l, nil
}

// resumeConflict judges a Resume's write that failed with a bad version,
// by reading the node: stamped by from, the holder being taken over from,
// it was renewed meanwhile (errRenewedMeanwhile); otherwise another holder
// took it over first (ErrTakenOver). The Resume's own write is not among
// them: after a lost answer the framework recognises it (UniqueData), and
// a bad version without a lost answer refused the only write of the call.
func (l *Lease) resumeConflict(ctx context.Context, from string) error {
	got, _, err := l.client.Get(ctx, l.node.Path)
	if err != nil {
		return err
	}
	if s, _, ok := ParseStamp(got); ok && from != "" && s.Holder == from {
		return errRenewedMeanwhile
	}
	return ErrTakenOver
}
