package main

import (
	"context"
	"flag"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
)

// rwlockHelp is the longer help of `zkr rwlock`.
const rwlockHelp = `Waits for the read lock (--read) or the write lock (--write) of the
read/write lock at PATH, runs COMMAND while it holds it, releases it when
COMMAND exits, and exits with COMMAND's status. The lock is Curator's
InterProcessReadWriteLock: readers share it, a writer holds it alone, and
everyone is served in arrival order, across zkr, Go and Java processes.
Signals, --timeout, --on-lost and --grace work as for zkr lock.

COMMAND's environment has
  ZKR_FENCING_TOKEN  the lock node's creation zxid
  ZKR_LOCK_NODE      the lock node's path`

// setupRWLock is `zkr rwlock PATH --read|--write -- COMMAND`.
func setupRWLock(fs *flag.FlagSet, conn *connFlags) runFunc {
	var a acquireFlags
	a.register(fs)
	read := fs.Bool("read", false, "take the read lock, shared with other readers")
	write := fs.Bool("write", false, "take the write lock, held alone")
	return func(ctx context.Context, e *env, args, child []string) error {
		if err := a.check(); err != nil {
			return err
		}
		if *read == *write {
			return usagef("rwlock: give exactly one of --read and --write")
		}
		client, err := conn.newClient(e)
		if err != nil {
			return err
		}
		defer client.Close()
		rw, err := rwlock.New(client, args[0], rwlock.WithData(nodeData(child)), rwlock.WithErrorPolicy(a.policy))
		if err != nil {
			return err
		}
		lock, kind := rw.WriteLock(), "write"
		if *read {
			lock, kind = rw.ReadLock(), "read"
		}
		what := "rwlock " + kind + " " + args[0]
		hold, err := waitFor(ctx, e, conn, client, a, what, func(ctx context.Context, timeout time.Duration) (*rwlock.Hold, error) {
			if timeout >= 0 {
				return lock.AcquireTimeout(ctx, timeout)
			}
			return lock.Acquire(ctx)
		}, releaseHold)
		if err != nil {
			return err
		}
		return runUnderHold(ctx, e, what, hold, nil, child, a)
	}
}
