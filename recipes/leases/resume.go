package leases

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// maxResumeTries bounds the reads and writes of a Resume that keeps
// meeting writes of another holder.
const maxResumeTries = 3

// Resume takes over the TTL lease at path, a lease that an earlier run of
// the holder's process acquired and whose node name it kept (see
// semaphore.Semaphore.Resume, which checks that path is one of its
// leases). It reads the node, whose stamp gives the time to live (the
// server does not tell it), and rewrites its stamp conditionally on the
// version it read: from then on, the returned Lease is the holder, and the
// earlier one (if its process still runs) fails its next renewal with
// ErrLost. The deadline starts anew, on this process's clock.
//
// The node's name is a capability: whoever has it can take the lease, and
// until the earlier holder's next renewal both believe they hold it. Keep
// the name where only the job's own restarts find it, and keep renewals
// frequent (a Keeper renews every third of the TTL).
//
// A node that is gone (expired on the server, or returned) gives an error
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
		if err == nil || !errors.Is(err, zk.ErrBadVersion) || try == maxResumeTries {
			return l, err
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
	l.ttl = newTTLHold(ttl, stat.Version, nil, time.Now())
	at := time.Now()
	written := l.stamp(TTLMode, ttl, at, stamp.Renewals+1)
	l.ttl.written = written
	stat, err = client.Set(ctx, path, written, stat.Version)
	if errors.Is(err, zk.ErrBadVersion) {
		stat, err = l.ownWrite(ctx, written, nil)
	}
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return nil, fmt.Errorf("leases: resume %s: %w: the lease expired or was returned", path, ErrLost)
	case err != nil:
		return nil, fmt.Errorf("leases: resume %s: %w", path, err)
	}
	l.renewals = stamp.Renewals + 1
	l.ttl.version = stat.Version
	l.ttl.deadline = at.Add(ttl)
	// Ends on a return, or when the deadline passes.
	go l.runTTL()
	return l, nil
}
