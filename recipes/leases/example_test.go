package leases_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// A lease from a semaphore, bounded to a maximum hold time: the work stops
// when the lease is lost, whether through the connection, the session, or
// the time running out.
func ExampleLease() {
	ctx := context.Background()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ",")) // e.g. "127.0.0.1:2181"
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	sem, err := semaphore.New(client, "/examples/leases/export", 2,
		semaphore.WithMaxHold(50*time.Millisecond))
	if err != nil {
		fmt.Println(err)
		return
	}
	lease, err := sem.AcquireTimeout(ctx, 5*time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer lease.Release(ctx)

	select {
	case <-lease.Lost(): // a long job outlives its lease
		fmt.Println("expired:", errors.Is(lease.Err(), leases.ErrExpired))
	case <-time.After(10 * time.Second):
		fmt.Println("still held")
	}
	// Output: expired: true
}

// A job's lease that outlives the job's process: a TTL lease (the server
// must run with extendedTypesEnabled=true), kept by a keeper while the
// job's context lives. The job saves the lease's name; after a restart it
// resumes the lease by that name, and the earlier holder learns at its
// next renewal that the lease has moved on.
func ExampleKeep() {
	ctx := context.Background()
	servers := strings.Split(os.Getenv("ZK_SERVERS"), ",") // e.g. "127.0.0.1:2181"
	client, err := framework.Connect(ctx, servers)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	jobs, err := semaphore.New(client, "/examples/leases/jobs", 1,
		semaphore.WithTTL(3*time.Second), semaphore.WithData([]byte("job 42")))
	if err != nil {
		fmt.Println(err)
		return
	}
	lease, err := jobs.AcquireTimeout(ctx, 5*time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	saved := path.Base(lease.Node()) // the job keeps it where a restart finds it
	jobCtx, jobDone := context.WithCancel(ctx)
	defer jobDone()
	keeper, err := leases.Keep(jobCtx, lease, lease.Release)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("held by %s, renewed every %v\n", lease.Data(), lease.MaxHold()/3)

	// The job's process restarts: a new client resumes the lease.
	restarted, err := framework.Connect(ctx, servers)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer restarted.Close()
	again, err := semaphore.New(restarted, "/examples/leases/jobs", 1, semaphore.WithTTL(3*time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	resumed, err := again.Resume(ctx, saved)
	if err != nil {
		fmt.Println(err)
		return
	}
	<-keeper.Done() // the old keeper's next renewal finds the lease taken over
	fmt.Println("old keeper stopped, lease lost:", errors.Is(keeper.Err(), leases.ErrLost))

	// The resumed job runs under a keeper of its own, and finishes.
	work, finish := context.WithCancel(ctx)
	defer finish()
	k, err := leases.Keep(work, resumed, resumed.Release)
	if err != nil {
		fmt.Println(err)
		return
	}
	finish() // the job is done: the keeper returns the lease
	<-k.Done()
	fmt.Println("released:", k.Err())
	// Output:
	// held by job 42, renewed every 1s
	// old keeper stopped, lease lost: true
	// released: <nil>
}
