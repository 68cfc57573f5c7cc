package zkrecipes_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// The sentinels are shared: a caller branches on zkrecipes.ErrNotAcquired
// whichever recipe said it (each recipe also re-exports it under its own
// name, as mutex.ErrNotAcquired).
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	server, err := zktesting.Start(ctx)
	if err != nil {
		fmt.Println("no ZooKeeper installed:", err)
		return
	}
	defer server.Close()
	connect := func() *framework.Client {
		c, err := framework.Connect(ctx, []string{server.Addr()})
		if err != nil {
			panic(err)
		}
		return c
	}
	first, second := connect(), connect()
	defer first.Close()
	defer second.Close()

	// One process holds the lock and the only lease...
	lock, _ := mutex.New(first, "/app/lock")
	hold, err := lock.Acquire(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer hold.Release(ctx)
	sem, _ := semaphore.New(first, "/app/slots", 1)
	lease, err := sem.Acquire(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sem.Release(ctx, lease)

	// ...so another process gives up on both after a short wait, with the
	// same error.
	other, _ := mutex.New(second, "/app/lock")
	_, lockErr := other.AcquireTimeout(ctx, 3*time.Second)
	otherSem, _ := semaphore.New(second, "/app/slots", 1)
	_, semErr := otherSem.AcquireTimeout(ctx, 3*time.Second)
	fmt.Println(errors.Is(lockErr, zkrecipes.ErrNotAcquired), errors.Is(semErr, zkrecipes.ErrNotAcquired))
	// Output: true true
}
