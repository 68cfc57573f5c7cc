package reliability_test

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/reliability/internal/chaos"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// The shape of a chaos run.
const (
	chaosClients        = 5
	chaosSessionTimeout = 6 * time.Second // the standard policy's margin is a third of it
	chaosShrunkTimeout  = 5 * time.Second // a member's limit in the shrink-grant fault
	chaosSyncLimit      = 5               // ticks (200 ms): a cut follower answers for about 1 s
	chaosSemaphoreMax   = 3
	chaosMaxHold        = 2 * time.Second // of the counted semaphore's leases; a few holds last longer
	defaultChaosRun     = 2 * time.Minute
	settleTimeout       = 2 * time.Minute // for the clients to reconnect after the last fault
	orphanTimeout       = 30 * time.Second
	goroutineTimeout    = 30 * time.Second
)

// chaosRecipes are the recipes every client loops on, each on a path of its
// own under root: a mutex, a semaphore, a semaphore whose maximum is a
// shared count and whose leases are time-bounded, a read/write lock
// (even clients write, odd clients read), and the leader latch and
// selector. A recipe that lands joins here,
// with its adapter in reliability/internal/chaos.
func chaosRecipes(root string) []struct {
	recipe chaos.Recipe
	dir    string
} {
	return []struct {
		recipe chaos.Recipe
		dir    string
	}{
		{chaos.Mutex{}, "mutex"},
		{chaos.Semaphore{Max: chaosSemaphoreMax}, "semaphore"},
		{chaos.CountedSemaphore{Max: chaosSemaphoreMax, CountPath: root + "/count", MaxHold: chaosMaxHold}, "counted-semaphore"},
		{chaos.RWLock{}, "rwlock"},
		{chaos.Latch{}, "leader-latch"},
		{chaos.Selector{}, "leader-selector"},
	}
}

// Five clients of a three-server ensemble, each behind proxies of its own,
// loop on every lock recipe while faults of every kind are injected, and
// the Curator peer joins for the middle half of the run. No hold overlaps
// another unsignalled, fencing tokens increase, no node is left, no
// goroutine leaks and every client's states add up. The run lasts
// CHAOS_DURATION (2m by default); its report goes to CHAOS_REPORT.
func TestChaos_NothingHeldTwiceNothingLeftBehind(t *testing.T) {
	zktest.Integration(t)
	duration, seed := chaosDuration(t), chaosSeed(t)
	t.Logf("chaos: duration %v seed %d (CHAOS_SEED=%d replays the schedule)", duration, seed, seed)
	// The server grants less than the quiet client asks for (see
	// connectChaosClients).
	// Its members reach each other through proxies, so that a follower
	// can be cut off from the others; a short syncLimit keeps the lag that
	// its clients allow for (WithServerLag) well inside the session.
	ensemble := zktest.NewEnsemble(t, 3, append(chaosServerOptions(), zktesting.WithMaxSessionTimeout(chaosSessionTimeout),
		zktesting.WithPeerFaults(), zktesting.WithSyncLimit(chaosSyncLimit))...)
	members, dial := chaosMembers(ensemble)
	root := zktest.UniquePath(t)
	logger := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	observer, err := framework.Connect(context.Background(), ensemble.Addrs(), framework.WithLogger(logger))
	require.NoError(t, err)
	defer observer.Close()
	curator := zktest.StartCurator(t, ensemble.ConnectString())

	baseline := runtime.NumGoroutine() // the observer, the peer and the ensemble are in it
	ledger, stats := chaos.NewLedger(), chaos.NewStats()
	var shrunk atomic.Int64
	clients, links, logs := connectChaosClients(t, members, dial, ensemble.ServerLag(), logger, &shrunk)
	workers := goWorkers(t, root, clients, ledger, stats, seed)
	caches := startChaosCaches(t, root, clients)
	registry := startChaosRegistry(t, root, clients, observer)
	nodeView := startChaosNodeView(t, root, clients[1], clients[2], seed) // no cache of root on these
	edges := goEdges(t, root, clients, ledger, stats, seed)
	counter := startChaosCounter(t, root, clients, stats)
	rounds := startChaosBarrier(root, clients, ledger, stats, seed)
	queues := startChaosQueues(t, root, clients, links, ensemble.ServerLag(), dial, logger, ledger, stats, seed)
	curatorWorkers := []*chaos.Worker{
		{Recipe: "mutex", Locker: chaos.CuratorMutex{Peer: curator, Handle: "chaos-mutex", Path: root + "/mutex", Observer: observer}},
		{Recipe: "semaphore", Locker: chaos.CuratorSemaphore{Peer: curator, Handle: "chaos-sem", Path: root + "/semaphore", Max: chaosSemaphoreMax}},
		{Recipe: "rwlock", Locker: chaos.CuratorRWLock{Peer: curator, Handle: "chaos-rw-write", Path: root + "/rwlock", Write: true, Observer: observer}},
		{Recipe: "rwlock", Locker: chaos.CuratorRWLock{Peer: curator, Handle: "chaos-rw-read", Path: root + "/rwlock", Observer: observer}},
		{Recipe: "leader-latch", Locker: chaos.CuratorLatch{Peer: curator, Handle: "chaos-latch", Path: root + "/leader-latch", Observer: observer}},
	}
	for i, w := range curatorWorkers {
		w.Holder, w.Ledger, w.Stats, w.Seed = chaos.CuratorHolder, ledger, stats, seed+1000+uint64(i)
	}
	schedule := &chaos.Schedule{
		Ensemble: ensemble, Links: links, SessionTimeout: chaosSessionTimeout, Seed: seed,
		Log: slog.New(slog.NewTextHandler(t.Output(), nil)), Clock: ledger.Clock(), Holders: holderNames(len(clients)),
		Holding: ledger.Holding, ShrunkTimeout: chaosShrunkTimeout, Kinds: chaosFaultKinds(),
	}
	runners := append(edges.runners, workersAsRunners(workers)...)
	runners = append(append(runners, counter.runners...), rounds)
	runners = append(runners, queues.runners...)
	require.NoError(t, runChaos(duration, schedule, runners, curatorWorkers), "the schedule could not undo a fault")
	leaveElections(t, workers)

	report := chaos.NewReport(duration, seed, len(clients))
	report.TLS = chaosTLSOn()
	report.Faults = schedule.Counts()
	report.Fill(stats)
	report.AddViolations(ledger.Check())
	report.HoldsInterrupted = chaos.Interrupted(ledger.Holds())
	report.ExpiredUnderHolder = chaos.ExpiredUnderHolder(ledger.Holds(), schedule.Expiries())
	report.GrantsShrunk = int(shrunk.Load())
	// The judges read the servers' state through the observer, which may
	// be connected to a follower still catching up with the leader (one
	// just restarted, or cut off from it): a reader after others' writes
	// syncs first.
	syncCtx, cancelSync := context.WithTimeout(context.Background(), settleTimeout)
	require.NoError(t, observer.Sync(syncCtx, root), "the observer's server never caught up")
	cancelSync()
	edges.judge(t, observer, ledger, report)
	counter.judge(t, observer, ledger, report)
	judgeChaosBarrier(rounds, report)
	require.Eventually(t, func() bool {
		for _, c := range clients {
			if !c.State().IsConnected() {
				return false
			}
		}
		return true
	}, settleTimeout, 50*time.Millisecond, "every client reconnects once the faults are over")
	queues.judge(t, observer, report)
	registry.judge(t, observer, report)
	nodeView.judge(t, observer, report)
	report.Orphans = append(report.Orphans, waitNoOrphans(t, observer, root)...)
	caches.judge(t, observer, root, report)
	for i, l := range logs {
		for _, p := range l.Check() {
			report.StateProblems = append(report.StateProblems, fmt.Sprintf("client %d: %s", i, p))
		}
	}
	for i, c := range clients {
		// The server grants at most chaosSessionTimeout; a client that
		// believes in more declares Lost after the server has expired it.
		if got := c.SessionTimeout(); got > chaosSessionTimeout {
			report.StateProblems = append(report.StateProblems, fmt.Sprintf(
				"client %d: session timeout %v, but the server grants at most %v", i, got, chaosSessionTimeout))
		}
		assert.NoError(t, c.Close())
	}
	report.RepliesDropped, report.RepliesDroppedBy = droppedReplies(links)
	report.LeakedGoroutines = leakedGoroutines(t, baseline)
	judge(t, report, root)
}

// goWorkers returns a worker for every recipe and client.
func goWorkers(t *testing.T, root string, clients []*framework.Client, ledger *chaos.Ledger, stats *chaos.Stats, seed uint64) []*chaos.Worker {
	var workers []*chaos.Worker
	for _, r := range chaosRecipes(root) {
		ledger.SetLimit(r.recipe.Name(), r.recipe.Limit())
		for i, c := range clients {
			l, err := r.recipe.New(c, i, root+"/"+r.dir)
			require.NoError(t, err)
			workers = append(workers, &chaos.Worker{
				Recipe: r.recipe.Name(), Holder: fmt.Sprintf("go-%d", i), Locker: l,
				Ledger: ledger, Stats: stats, Seed: seed + uint64(len(workers)),
			})
		}
	}
	return workers
}

// runChaos runs the schedule and the workers for duration, and on until
// every kind of fault has been injected, the Curator workers for the
// duration's middle half, and returns once all have stopped and every
// fault is undone.
func runChaos(duration time.Duration, schedule *chaos.Schedule, workers []runner, curatorWorkers []*chaos.Worker) error {
	runCtx, stop := context.WithCancel(context.Background())
	defer stop()
	var wg sync.WaitGroup
	// Ends the run once it has lasted duration and every kind of fault has
	// been injected: a loaded machine restarts members slowly, and a round
	// of faults outlasted two minutes there. Ends with the run otherwise.
	wg.Go(func() {
		timer := time.NewTimer(duration)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-runCtx.Done():
			return
		}
		select {
		case <-schedule.FirstRound():
		case <-runCtx.Done():
			return
		}
		stop()
	})
	for _, w := range workers {
		wg.Go(func() { w.Run(runCtx) }) // ends when the run does
	}
	for _, w := range curatorWorkers {
		// Ends when the middle half of the run is over.
		wg.Go(func() {
			timer := time.NewTimer(duration / 4)
			defer timer.Stop()
			select {
			case <-timer.C:
			case <-runCtx.Done():
				return
			}
			half, cancel := context.WithTimeout(runCtx, duration/2)
			defer cancel()
			w.Run(half)
		})
	}
	err := schedule.Run(runCtx)
	stop() // a failed schedule ends the run early
	wg.Wait()
	return err
}

// judge writes the report, logs its summary and fails the test on any
// broken promise.
func judge(t *testing.T, report *chaos.Report, root string) {
	path := reportPath(t)
	require.NoError(t, report.Write(path))
	t.Log(report.Summary())
	t.Logf("chaos: report in %s", path)
	for _, v := range report.Violations {
		t.Errorf("chaos: violation: %v", v)
	}
	for _, v := range report.JavaViolations {
		t.Logf("chaos: violation of the Java side, not ours: %v: %s", v, v.Java)
	}
	assert.Empty(t, report.Orphans, "nodes left under %s", root)
	assert.Zero(t, report.LeakedGoroutines, "goroutines leaked")
	assert.Empty(t, report.StateProblems, "client state machines")
	for _, p := range report.Problems() {
		t.Errorf("chaos: %s", p)
	}
	for _, r := range []string{
		"mutex", "semaphore", "counted-semaphore", "rwlock", "mutex by curator", "semaphore by curator", "rwlock by curator",
		"rwlock downgrade", "mutex explicit owner", "semaphore multi", ttlRecipe,
		"leader-latch", "leader-selector", "leader-latch by curator",
	} {
		assert.Positive(t, report.Acquisitions[r], "acquisitions of %s", r)
	}
	assert.Positive(t, report.Jobs["applied"], "guarded jobs enqueued")
	for _, k := range []string{"nodeview_workers_made", "nodeview_dir_deleted", "nodeview_oneshot_reads", "nodeview_data_set"} {
		assert.Positive(t, report.Caches[k], "node view: %s", k)
	}
	assert.Positive(t, report.Counter["believed"], "counter increments applied")
	assert.Positive(t, report.DoubleBarrier["rounds_completed"], "double-barrier rounds completed")
	assert.Positive(t, report.LockSafeQueue["items_consumed"], "lock-safe queue items taken")
	assert.Positive(t, report.TxQueue["effects"], "transactional queue items applied")
	assert.Positive(t, report.SimpleQueue["taken"], "simple queue items taken")
	// A round of every kind lasts over a minute (five of them outlast the
	// session timeout): a shorter run need not finish one.
	if d, err := time.ParseDuration(report.Duration); err == nil && d >= chaos.MinBiteRun {
		assert.Len(t, report.Faults, len(chaosFaultKinds()), "every kind of fault was injected")
	}
}

// connectChaosClients connects chaosClients clients, each through a proxy
// of its own to every member, recording their states from the first. Each
// allows for the lag of a follower cut off from its leader. Each
// sends credentials on every connection, so that the answer to an auth can
// be lost. The last client is quiet: go-zookeeper's info logging is off,
// and it asks for twice the session timeout the server grants. shrunk
// counts the reconnects that resumed a session under a grant shorter than
// the ensemble's own.
func connectChaosClients(t *testing.T, members []string, dial []framework.Option, lag time.Duration, logger *slog.Logger, shrunk *atomic.Int64) ([]*framework.Client, [][]chaos.Link, []*chaos.StateLog) {
	var clients []*framework.Client
	var links [][]chaos.Link
	var logs []*chaos.StateLog
	for i := range chaosClients {
		var addrs []string
		var ls []chaos.Link
		for _, m := range members {
			p := zktest.NewProxy(t, m)
			addrs = append(addrs, p.Addr())
			ls = append(ls, p)
		}
		opts := []framework.Option{
			framework.WithSessionTimeout(chaosSessionTimeout), framework.WithLogger(logger),
			framework.WithAuth("digest", []byte("chaos:secret")), framework.WithServerLag(lag),
		}
		opts = append(opts, dial...)
		if i == chaosClients-1 {
			opts = append(opts, framework.WithSessionTimeout(2*chaosSessionTimeout), framework.WithZKOptions(zk.WithLogInfo(false)))
		}
		c, err := framework.New(addrs, opts...)
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		log := &chaos.StateLog{}
		c.AddListener(func(sc framework.StateChange) {
			log.Listen(sc)
			if sc.State == framework.Reconnected && !sc.NewSession && c.SessionTimeout() < chaosSessionTimeout {
				shrunk.Add(1)
			}
		})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		require.NoError(t, c.WaitConnected(ctx))
		cancel()
		clients, links, logs = append(clients, c), append(links, ls), append(logs, log)
	}
	return clients, links, logs
}
