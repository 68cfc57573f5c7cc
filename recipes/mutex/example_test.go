package mutex_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// Take a lock for at most ten seconds of waiting, release it when done,
// and stop working if the hold is lost.
func ExampleMutex() {
	ctx := context.Background()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ",")) // e.g. "127.0.0.1:2181"
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()

	lock, err := mutex.New(client, "/examples/mutex/billing")
	if err != nil {
		fmt.Println(err)
		return
	}
	hold, err := lock.AcquireTimeout(ctx, 10*time.Second)
	if errors.Is(err, mutex.ErrNotAcquired) {
		fmt.Println("someone else holds the lock")
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	defer hold.Release(ctx)

	work := time.After(10 * time.Millisecond) // the guarded work
	select {
	case <-hold.Lost():
		fmt.Println("lost the lock:", hold.Err())
	case <-work:
		fmt.Println("work done under the lock")
	}
	// Output: work done under the lock
}

// A hold can be handed from the goroutine that took it to another one,
// by naming its owner.
func ExampleWithOwner() {
	ctx := context.Background()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ","))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	lock, err := mutex.New(client, "/examples/mutex/owner")
	if err != nil {
		fmt.Println(err)
		return
	}
	job := mutex.WithOwner(ctx, "job-42")
	if _, err := lock.Acquire(job); err != nil {
		fmt.Println(err)
		return
	}
	done := make(chan error)
	go func() { done <- lock.Release(job) }() // another goroutine, same owner
	fmt.Println("released:", <-done == nil)
	// Output: released: true
}
