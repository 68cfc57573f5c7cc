// Package zkrecipes is a library of ZooKeeper coordination recipes for Go,
// in the tradition of Apache Curator and wire-compatible with Curator 5.x:
// a Go process and a Java process on the same path exclude each other.
//
// This package holds only the sentinel errors that the client and every
// recipe share (each package re-exports those it returns, as the same
// values: framework.ErrClosed is ErrClosed); the work is done in its
// sub-packages:
//
//   - framework: the client. One connection and its session, connection
//     states with listeners, retry policies, protected creates, container
//     parents, namespaces and ACLs.
//   - recipes/mutex: the reentrant inter-process mutex, and the lock
//     engine it shares with the read/write lock; recipes/mutex/lockdriver
//     holds the engine's drivers, for authors of recipes on it.
//   - recipes/rwlock: shared readers and exclusive writers, with downgrade.
//   - recipes/semaphore: SemaphoreV2 and the semaphore mutex.
//   - recipes/leases: the lease a semaphore hands out.
//   - recipes/sharedcount: a versioned count, for a semaphore's maximum.
//   - recipes/multilock: several locks taken all or none (Curator's
//     InterProcessMultiLock).
//   - recipes/leader: leader election, Curator's LeaderLatch and
//     LeaderSelector, and an Observer of an election;
//     recipes/leader/leaderhttp serves its health to an HTTP probe.
//   - recipes/cache: a subtree kept in memory with Curator's events
//     (CuratorCache, and by depth NodeCache, PathChildrenCache and
//     TreeCache); recipes/cache/cachetest checks one against the server.
//   - recipes/node: nodes that outlive a session (Curator's PersistentNode,
//     PersistentTtlNode) and group membership (GroupMember).
//   - recipes/discovery: curator-x-discovery's service instances (their
//     JSON, as Curator writes and reads it) and URI specs.
//   - recipes/atomicvalue: Curator's distributed atomic values (long,
//     integer, bytes) and its cached long.
//   - recipes/barrier: Curator's barrier and double barrier.
//   - recipes/queue: Curator's distributed queues (plain, priority, delay,
//     id) and its simple queue.
//   - zktesting: local ZooKeeper servers and ensembles for your own tests,
//     bound to a testing.TB, and connection faults that expire a session;
//     zktesting/zkcontainer, a module of its own, runs one in a container
//     through testcontainers-go.
//   - observe/otelzk, a module of its own: the client's and the recipes'
//     events (framework.WithObserver) as OpenTelemetry metrics and spans.
//   - cmd/zkr: the command. A mutex (zkr lock), a read/write lock
//     (zkr rwlock) and semaphore leases (zkr semaphore) around a shell
//     command or, for zkr lock, until interrupted; a command run while it
//     leads an election (zkr elect); `zkr inspect` to see who holds or
//     leads what, `zkr watch` to follow a subtree's changes, revocation,
//     a local server, and a demo
//     (go install github.com/zkrecipes/zkrecipes/cmd/zkr@latest).
//
// The shortest use:
//
//	client, err := framework.Connect(ctx, []string{"127.0.0.1:2181"})
//	if err != nil {
//		return err
//	}
//	defer client.Close()
//	lock, err := mutex.New(client, "/locks/billing")
//	if err != nil {
//		return err
//	}
//	hold, err := lock.AcquireTimeout(ctx, 10*time.Second)
//	if err != nil {
//		return err // errors.Is(err, zkrecipes.ErrNotAcquired): held by others
//	}
//	defer hold.Release(ctx)
//
// Every hold says when it is lost (Lost, Err) and carries a fencing token.
//
// In tests, start a server of your own:
//
//	server := zktesting.NewServer(t)
//	client, err := framework.Connect(t.Context(), []string{server.Addr()})
package zkrecipes
