package reliability_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
	"github.com/zkrecipes/zkrecipes/reliability/internal/chaos"
)

// runner is a part of the chaos run that loops until its context ends.
type runner interface{ Run(ctx context.Context) }

// edges are the chaos run's parts at the recipes' edges, and what they
// check at the end.
type edges struct {
	runners  []runner
	tally    *chaos.Tally
	counts   []string // the incremented shared counts' paths
	resource *chaos.Resource
	resumers []*chaos.TTLResumer
	jobs     *chaos.Jobs
}

// The edges' shape.
const (
	semaphoreMultiN = 2 // leases taken at once by the multi-lease workers
	ttlRecipe       = "ttl-semaphore"
)

// goEdges returns the workers at the recipes' edges, contending with the
// plain ones: writers of the read/write lock that downgrade (client 0 in
// order, client 1 as an explicit owner whose read acquire and write
// release run at once), explicit owners of the mutex that acquire in one goroutine and
// release in another (2 and 3), acquires of two semaphore leases in one
// transaction (0 and 3), an incrementer of a shared count of its own on
// every client,
// TTL leases of a one-lease semaphore that client 1 takes and client 2
// takes over with Resume, and 3 and 4 likewise, fenced by a resource that
// keeps the highest token, and a producer of guarded jobs on every client,
// whose jobs client 4 consumes.
func goEdges(t *testing.T, root string, clients []*framework.Client, ledger *chaos.Ledger, stats *chaos.Stats, seed uint64) *edges {
	e := &edges{tally: &chaos.Tally{}, resource: &chaos.Resource{Name: ttlRecipe, Clock: ledger.Clock()}}
	worker := func(recipe, label string, i int, part string, l chaos.Locker) {
		e.runners = append(e.runners, &chaos.Worker{
			Recipe: recipe, Label: label, Holder: fmt.Sprintf("go-%d/%s", i, part), Locker: l,
			Ledger: ledger, Stats: stats, Seed: seed + 500 + uint64(len(e.runners)),
		})
	}
	for i, owner := range []string{"", "downgrader-1"} {
		d, err := chaos.NewDowngrade(clients[i], root+"/rwlock", owner)
		require.NoError(t, err)
		worker("rwlock", "rwlock downgrade", i, "downgrade", d)
	}
	for _, i := range []int{2, 3} {
		o, err := chaos.NewOwnedMutex(clients[i], root+"/mutex", fmt.Sprintf("owner-%d", i))
		require.NoError(t, err)
		worker("mutex", "mutex explicit owner", i, "owner", o)
	}
	for _, i := range []int{0, 3} {
		s, err := chaos.NewSemaphoreN(clients[i], root+"/semaphore", chaosSemaphoreMax, semaphoreMultiN)
		require.NoError(t, err)
		worker("semaphore", "semaphore multi", i, "multi", s)
	}
	for i, c := range clients {
		path := fmt.Sprintf("%s/increments/go-%d", root, i)
		e.counts = append(e.counts, path)
		count, err := sharedcount.New(c, path, 0)
		require.NoError(t, err)
		e.runners = append(e.runners, &chaos.Incrementer{Count: count, Tally: e.tally, Stats: stats, Label: fmt.Sprintf("increments go-%d", i)})
	}
	ledger.SetLimit(ttlRecipe, 1)
	for _, pair := range [][2]int{{1, 2}, {3, 4}} {
		first, err := semaphore.New(clients[pair[0]], root+"/"+ttlRecipe, 1, semaphore.WithTTL(chaos.TTL()))
		require.NoError(t, err)
		second, err := semaphore.New(clients[pair[1]], root+"/"+ttlRecipe, 1, semaphore.WithTTL(chaos.TTL()))
		require.NoError(t, err)
		r := &chaos.TTLResumer{
			First: first, Second: second, Recipe: ttlRecipe,
			Holder: fmt.Sprintf("go-%d/ttl", pair[0]), SecondHolder: fmt.Sprintf("go-%d/ttl-resumed", pair[1]),
			Ledger: ledger, Stats: stats, Resource: e.resource,
		}
		e.resumers = append(e.resumers, r)
		e.runners = append(e.runners, r)
	}
	e.jobs = &chaos.Jobs{Dir: root + "/jobs", Clock: ledger.Clock()}
	// Persistent, not a container: the server would remove it whenever
	// the consumer has emptied it.
	_, err := clients[0].Create(t.Context(), e.jobs.Dir, nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	for i, c := range clients {
		lock, err := mutex.New(c, root+"/jobs-lock")
		require.NoError(t, err)
		e.runners = append(e.runners, &chaos.JobProducer{Queue: e.jobs, Client: c, Lock: lock, Name: fmt.Sprintf("go-%d", i), Stats: stats})
	}
	e.runners = append(e.runners, &chaos.JobConsumer{Queue: e.jobs, Client: clients[len(clients)-1], Stats: stats})
	return e
}

// judge adds what the edges found to the report: the fenced resource's
// writes and its violations, the shared counts' rise against the
// increments the workers believe applied, and the guarded jobs taken
// against their enqueues' outcomes.
func (e *edges) judge(t *testing.T, observer *framework.Client, ledger *chaos.Ledger, report *chaos.Report) {
	accepted, refused := e.resource.Counts()
	stale := 0
	for _, r := range e.resumers {
		stale += r.StaleTries()
	}
	report.Fencing = map[string]int{"accepted": accepted, "refused": refused, "stale_tries": stale}
	report.Violations = append(report.Violations, e.resource.Violations()...)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var total int32
	for _, path := range e.counts {
		count, err := sharedcount.New(observer, path, 0)
		require.NoError(t, err)
		v, err := count.Get(ctx)
		require.NoError(t, err)
		total += v.Count
	}
	believed, unknown := e.tally.Counts()
	report.Increments = map[string]int{"believed": believed, "unknown": unknown, "final": int(total)}
	report.Violations = append(report.Violations, e.tally.Check("sharedcount", ledger.Clock().Now(), 0, total)...)

	// The producers have stopped: what is left in the queue is taken once.
	require.NoError(t, e.jobs.Take(ctx, observer))
	report.Jobs = e.jobs.Counts()
	report.Violations = append(report.Violations, e.jobs.Check()...)
}
