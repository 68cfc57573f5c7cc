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
func ExampleContextWithOwner() {
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
	job := mutex.ContextWithOwner(ctx, "job-42")
	if _, err := lock.Acquire(job); err != nil {
		fmt.Println(err)
		return
	}
	done := make(chan error)
	go func() { done <- lock.Release(job) }() // another goroutine, same owner
	fmt.Println("released:", <-done == nil)
	// Output: released: true
}

// Update the config only while holding the lock: the server applies the
// write only if the hold's node is still there, so a holder that has lost
// the lock without knowing it (paused past its session, say) writes
// nothing.
func ExampleHold_Guard() {
	ctx := context.Background()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ","))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	const config = "/examples/mutex/guarded-config"
	if err := client.EnsurePath(ctx, config); err != nil {
		fmt.Println(err)
		return
	}

	lock, err := mutex.New(client, "/examples/mutex/config-lock")
	if err != nil {
		fmt.Println(err)
		return
	}
	hold, err := lock.AcquireTimeout(ctx, 10*time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = client.Multi(ctx, hold.Guard(), framework.SetOp(config, []byte("max_connections=100"), -1))
	fmt.Println("written under the lock:", err == nil)

	if err := hold.Release(ctx); err != nil {
		fmt.Println(err)
		return
	}
	_, err = client.Multi(ctx, hold.Guard(), framework.SetOp(config, []byte("max_connections=0"), -1))
	fmt.Println("written after the release:", !errors.Is(err, mutex.ErrLost))

	data, _, err := client.Get(ctx, config)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(data))
	// Output:
	// written under the lock: true
	// written after the release: false
	// max_connections=100
}
