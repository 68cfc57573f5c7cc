package leases

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/holdwatch"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Lease is one held permit: an ephemeral lease node of the holder's
// session (Issue), or a TTL lease node that outlives it (IssueTTL, Resume).
// Its methods are safe for concurrent use, and any goroutine may renew or
// release it.
type Lease struct {
	client *framework.Client
	node   framework.Node
	data   []byte // the lease's own data, without a stamp
	opts   options

	watch *holdwatch.Watch // a lease of the holder's session
	ttl   *ttlHold         // a TTL lease (IssueTTL, Resume)

	fence    recipe.Fence  // the node's creation zxid, read lazily when no token was set
	tokenMu  sync.Mutex    // guards token and asked
	token    int64         // a grant's or take-over's zxid; 0: the node's creation zxid
	asked    bool          // FencingToken was called: the token is fixed from then on
	holder   string        // names this Lease in its node's stamp
	renewing chan struct{} // a token: one renewal at a time
	renewals int           // guarded by the renewing token
}

// Issue returns the lease of node, an ephemeral lease node that client
// created with data (which may start with a Stamp: Data returns what
// follows it). It is for recipes that issue leases, such as package
// semaphore; the lease then belongs to whoever the recipe hands it to.
func Issue(client *framework.Client, node framework.Node, data []byte, opts ...Option) (*Lease, error) {
	switch {
	case client == nil:
		return nil, fmt.Errorf("leases: issue: %w: nil client", ErrInvalidArgument)
	case node.Path == "" || node.Session == nil:
		return nil, fmt.Errorf("leases: issue: %w: a lease node needs a path and a session", ErrInvalidArgument)
	}
	o, err := recipe.Options(opts, ErrInvalidArgument)
	if err != nil {
		return nil, err
	}
	l := newLease(client, node, data, o)
	kind := &holdwatch.Kind{
		Client: client, Policy: o.policy, MaxHold: o.maxHold,
		Lost: ErrLost, Expired: ErrExpired, What: o.whatOr(),
		Recipe: o.kindOr(), Log: l.log(),
	}
	if client.Hooks().Observer() != nil {
		kind.Origin = time.Now()
	}
	l.watch = holdwatch.Start(holdwatch.Config{Node: node, Kind: kind})
	return l, nil
}

// newLease returns a Lease with the lease's own data, data without a
// stamp.
func newLease(client *framework.Client, node framework.Node, data []byte, o options) *Lease {
	if _, own, ok := ParseStamp(data); ok {
		data = own
	}
	return &Lease{
		client: client, node: node, data: append([]byte(nil), data...), opts: o,
		holder: zkpath.NewProtectionID(), renewing: make(chan struct{}, 1),
	}
}

// Node returns the lease node's path, relative to the client's namespace.
func (l *Lease) Node() string { return l.node.Path }

// Data returns a copy of the lease's own data: the data the lease node was
// created with, without the Stamp of a time-bounded lease.
func (l *Lease) Data() []byte { return append([]byte(nil), l.data...) }

// Session returns the session the lease node belongs to; for a TTL lease,
// the session it was created (or resumed) in, which it does not depend on.
func (l *Lease) Session() *framework.Session { return l.node.Session }

// Client returns the client the lease node was created through.
func (l *Lease) Client() *framework.Client { return l.client }

// FencingToken returns the lease's fencing token, known without a read
// for a lease that a recipe granted (Grant: for a semaphore's lease, the
// zxid of the listing of its leases directory that showed room for it) or
// that Resume took over (the zxid of the take-over's write); for a lease
// made with Issue or IssueTTL and never granted, the lease node's creation
// zxid, read from the server on the first call only. A holder's renewals
// never change its token; a take-over always gives a higher one. A lease
// of a semaphore handed out after another lease ended (released, lost,
// taken over) has a greater token than that lease's: a resource that
// allows as many users as the semaphore has leases can refuse a token
// below those of the users it admitted since, and one that keeps the
// highest token refuses a holder whose TTL lease was taken over, and
// admits the holders that come after it. A lease that is lost, or whose
// node is gone (or, for a session lease, whose session is) when the token
// is read, gives an error wrapping ErrLost. Where the resource is data in
// ZooKeeper itself, Guard is stronger: the server refuses the stale
// holder's write, and no resource keeps a token.
func (l *Lease) FencingToken(ctx context.Context) (int64, error) {
	l.tokenMu.Lock()
	token := l.token
	l.asked = true
	l.tokenMu.Unlock()
	if token != 0 {
		if err := l.Err(); errors.Is(err, ErrLost) {
			return 0, fmt.Errorf("leases: fencing token: %w", err)
		}
		return token, nil
	}
	token, err := l.fence.Token(ctx, l.client, l.node, l.ttl == nil)
	if err != nil {
		return 0, fmt.Errorf("leases: fencing token: %w", err)
	}
	return token, nil
}

// Guard returns an operation for framework.Client.Multi that fails the
// transaction unless the lease's node is still on the server as this
// holder left it, so that a write in the same transaction is applied only
// while the lease is held, atomically, by the server itself:
//
//	_, err := client.Multi(ctx, lease.Guard(), framework.SetOp("/jobs/42", data, -1))
//
// A transaction that the guard fails returns an error wrapping ErrLost
// that names the lease node, and writes nothing. Guard sends nothing; any
// client of the ensemble may run the transaction.
//
// For a lease of the holder's session the check takes any version of the
// node: the node is an ephemeral of that session whose name is unique to
// one create (protected, as package semaphore names its leases), so its
// existence proves that it is this lease's node, in its session; and a
// renewal (WithMaxHold) writes into it. A TTL lease outlives its session
// and may be taken over (Resume, which writes a new stamp), so its check
// pins the version of this holder's last write whose answer has come.
// A guard taken while the holder's own renewal is on its way carries the
// version from before it, and fails the transaction if the renewal lands
// first; so does one taken after a renewal whose outcome stayed unknown,
// until the next renewal succeeds. Such a false "lost" is safe (take the
// guard again and retry); a false "held" cannot happen, since any other
// write to the node raises its version past every version of this
// holder's, and no node is created again at its path (its name, too, is
// unique to one create).
//
// A guard taken once the lease has ended (Err is not nil: released, lost,
// or past its deadline) fails the transaction even while the node is still
// there.
//
// A guard is stronger than a fencing token: it needs no resource that
// keeps the highest token, only data kept in the same ZooKeeper.
//
// A guarded transaction whose answer is lost follows the rule of
// framework.Client.Multi: it is never applied twice, and never reported
// failed after it ran. When the client cannot prove whether it ran (a
// transaction with a set or a delete, say), it returns
// framework.ErrOutcomeUnknown, not ErrLost: read to learn which.
func (l *Lease) Guard() framework.Op {
	if l.ttl != nil {
		version, err := l.ttl.guarded()
		return recipe.Guard(l.node.Path, version, err)
	}
	return recipe.Guard(l.node.Path, -1, l.watch.Err())
}

// Grant makes zxid the lease's fencing token: the zxid of the read that
// granted the lease, which the recipe that issues it knows without another
// request (a semaphore's listing of its leases directory that showed room:
// see FencingToken). It is for such recipes, before they hand the lease
// out. A zxid below 1, or a lease whose token is fixed already (granted,
// taken over, or asked for), gives ErrInvalidArgument.
func (l *Lease) Grant(zxid int64) error {
	l.tokenMu.Lock()
	defer l.tokenMu.Unlock()
	switch {
	case zxid < 1:
		return fmt.Errorf("leases: grant: %w: zxid %d", ErrInvalidArgument, zxid)
	case l.token != 0 || l.asked:
		return fmt.Errorf("leases: grant: %w: the token of %s is fixed already", ErrInvalidArgument, l.node.Path)
	}
	l.token = zxid
	return nil
}

// Lost returns a channel that is closed when the lease ends without a
// release: see the package doc. For a session lease, the first call starts
// watching the node (one request); loss of the connection or session, and
// the end of the maximum hold time, are signalled whether or not Lost was
// called. A TTL lease watches its node from the start, for a take-over
// (ErrTakenOver) or a deletion, and ends at its deadline.
func (l *Lease) Lost() <-chan struct{} {
	if l.ttl != nil {
		return l.ttl.lost
	}
	return l.watch.Lost()
}

// Err returns nil while the lease is held; after a loss, an error that
// wraps ErrLost and says why; after a release, an error saying so.
func (l *Lease) Err() error {
	if l.ttl != nil {
		return l.ttl.Err()
	}
	return l.watch.Err()
}

// Release deletes the lease node, freeing its permit. Like every release of
// the library, it finishes after ctx has ended (a deferred Release after a
// timeout): it keeps ctx's values, not its end, and waits for the server
// at most 5 s, bounded by the client's retry policy. If the
// delete fails, the lease is released all the same and the node is deleted
// in the background once connected; the error says so. Releasing a lease
// that was lost gives an error wrapping ErrLost (its node is gone, or being
// deleted). Releasing again does nothing and returns nil. A TTL lease's
// node is deleted only while its version is the holder's; one that cannot
// be deleted is left to the server's TTL, and the error says so. A TTL
// lease whose node is at another holder's version, or already gone, when
// the delete arrives was lost before its release (taken over, and maybe
// released, before the holder heard): ErrLost, as etcd's revoke of a
// lease that is gone fails. A session lease's node found gone by its
// delete counts as released, as in Curator's Lease.close.
func (l *Lease) Release(ctx context.Context) error {
	if l.ttl != nil {
		return l.releaseTTL(ctx)
	}
	prior, first := l.watch.Finish(errReleased)
	switch {
	case !first:
		return nil
	case prior != nil:
		return fmt.Errorf("leases: release %s: %w", l.node.Path, prior)
	}
	return l.delete(ctx)
}

// delete deletes the lease node in its session, handing it to the
// background when that fails.
func (l *Lease) delete(ctx context.Context) error {
	switch err := recipe.DeleteNode(ctx, l.client, l.node); {
	case err == nil:
		return nil
	case errors.Is(err, framework.ErrSessionChanged):
		return recipe.Errorf("leases: release %s: %w: session lost: %w", l.node.Path, ErrLost, err)
	default:
		return fmt.Errorf("leases: release %s: deletion continues in the background: %w", l.node.Path, err)
	}
}
