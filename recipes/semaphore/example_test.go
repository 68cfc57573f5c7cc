package semaphore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
)

// Count-limited work: at most three jobs, across every process, call the
// rate-limited service at once. Each job waits at most five seconds for a
// lease, returns it when done, and stops if the lease is lost.
func ExampleSemaphore() {
	ctx := context.Background()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ",")) // e.g. "127.0.0.1:2181"
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()

	sem, err := semaphore.New(client, "/examples/semaphore/service", 3,
		semaphore.WithData([]byte("host-1/pid-42"))) // shown to operators
	if err != nil {
		fmt.Println(err)
		return
	}
	job := func() error {
		lease, err := sem.AcquireTimeout(ctx, 5*time.Second)
		if err != nil {
			return err // semaphore.ErrNotAcquired when the time ran out
		}
		defer lease.Release(ctx)

		work := time.After(10 * time.Millisecond) // the call to the service
		select {
		case <-lease.Lost():
			return lease.Err()
		case <-work:
			return nil
		}
	}

	var wg sync.WaitGroup
	errs := make([]error, 5)
	for i := range errs {
		wg.Go(func() { errs[i] = job() }) // ends when the job does
	}
	wg.Wait()
	fmt.Println("jobs done:", errors.Join(errs...) == nil)
	// Output: jobs done: true
}

// Two leases at once, all or nothing: an acquirer never holds one while it
// waits for the other.
func ExampleSemaphore_AcquireN() {
	ctx := context.Background()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ","))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	sem, err := semaphore.New(client, "/examples/semaphore/pair", 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	ls, err := sem.AcquireNTimeout(ctx, 2, 5*time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("leases held:", len(ls))
	_, err = sem.AcquireNTimeout(ctx, 2, time.Second)
	fmt.Println("two more:", errors.Is(err, semaphore.ErrNotAcquired))
	fmt.Println("released:", sem.Release(ctx, ls...) == nil)
	// Output:
	// leases held: 2
	// two more: true
	// released: true
}

// The maximum comes from a shared count (Curator's SharedCount): raising it
// lets a waiter in at once.
func ExampleNewCounted() {
	ctx := context.Background()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ","))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	count, err := sharedcount.New(client, "/examples/semaphore/workers-max", 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := count.Set(ctx, 1); err != nil {
		fmt.Println(err)
		return
	}
	sem, err := semaphore.NewCounted(client, "/examples/semaphore/workers", count)
	if err != nil {
		fmt.Println(err)
		return
	}
	first, err := sem.Acquire(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer first.Release(ctx)
	second := make(chan error, 1)
	go func() { // ends when the acquire returns, after the raise below
		l, err := sem.AcquireTimeout(ctx, 10*time.Second)
		if err == nil {
			err = l.Release(ctx)
		}
		second <- err
	}()
	if err := count.Set(ctx, 2); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("second lease:", <-second == nil)
	// Output: second lease: true
}

// A semaphore mutex: one holder at a time, not reentrant, released by
// whichever goroutine finishes the work.
func ExampleMutex() {
	ctx := context.Background()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ","))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	lock, err := semaphore.NewMutex(client, "/examples/semaphore/mutex")
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := lock.AcquireTimeout(ctx, 5*time.Second); err != nil {
		fmt.Println(err)
		return
	}
	done := make(chan error)
	go func() { done <- lock.Release(ctx) }() // the worker releases it; ends then
	fmt.Println("released:", <-done == nil)
	fmt.Println("again:", errors.Is(lock.Release(ctx), semaphore.ErrNotOwner))
	// Output:
	// released: true
	// again: true
}
