package main

import (
	"context"
	"flag"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
)

// semaphoreHelp is the longer help of `zkr semaphore`.
const semaphoreHelp = `Waits for one lease of the semaphore at PATH, runs COMMAND while it holds
it, returns the lease when COMMAND exits, and exits with COMMAND's status.
The semaphore is Curator's InterProcessSemaphoreV2 (leases under
PATH/leases, a guard lock under PATH/locks): at most N holders at once,
across zkr, Go and Java processes. The maximum is --leases N, or the
shared count at --count-path (Curator's SharedCount; --leases then seeds
it if it is missing). Signals, --timeout, --on-lost and --grace work as
for zkr lock.

COMMAND's environment has
  ZKR_FENCING_TOKEN  the lease node's creation zxid
  ZKR_LEASE_NODE     the lease node's path`

// setupSemaphore is `zkr semaphore PATH --leases N -- COMMAND`.
func setupSemaphore(fs *flag.FlagSet, conn *connFlags) runFunc {
	var a acquireFlags
	a.register(fs)
	leaseCount := fs.Int("leases", 0, "the semaphore's maximum `N` of leases (with --count-path: the count's value if it must be created)")
	countPath := fs.String("count-path", "", "read the maximum from the shared count at `path` (Curator's SharedCount)")
	return func(ctx context.Context, e *env, args, child []string) error {
		if err := a.check(); err != nil {
			return err
		}
		if *countPath == "" && *leaseCount < 1 {
			return usagef("semaphore needs --leases N (at least 1) or --count-path")
		}
		client, err := conn.newClient(e)
		if err != nil {
			return err
		}
		defer client.Close()
		sem, err := newSemaphore(client, args[0], *leaseCount, *countPath, semaphore.WithData(nodeData(child)), semaphore.WithErrorPolicy(a.policy))
		if err != nil {
			return err
		}
		lease, err := waitFor(ctx, e, conn, client, a, "semaphore "+args[0], func(ctx context.Context, timeout time.Duration) (*leases.Lease, error) {
			if timeout >= 0 {
				return sem.AcquireTimeout(ctx, timeout)
			}
			return sem.Acquire(ctx)
		}, func(ctx context.Context, l *leases.Lease) error { return l.Release(ctx) })
		if err != nil {
			return err
		}
		h := held{
			what: "semaphore " + args[0], lost: lease.Lost(), err: lease.Err,
			env:     []string{"ZKR_LEASE_NODE=" + lease.Node()},
			release: lease.Release,
		}
		return runWithToken(ctx, e, h, lease.FencingToken, child, a.childFlags)
	}
}

// newSemaphore returns the semaphore at path, with a fixed maximum or the
// one of the count at countPath (created with maxLeases if missing and
// maxLeases > 0).
func newSemaphore(client *framework.Client, path string, maxLeases int, countPath string, opts ...semaphore.Option) (*semaphore.Semaphore, error) {
	if countPath == "" {
		return semaphore.New(client, path, maxLeases, opts...)
	}
	var countOpts []sharedcount.Option
	if maxLeases < 1 {
		countOpts = append(countOpts, sharedcount.WithoutCreate())
	}
	count, err := sharedcount.New(client, countPath, int32(maxLeases), countOpts...)
	if err != nil {
		return nil, err
	}
	return semaphore.NewCounted(client, path, count, opts...)
}
