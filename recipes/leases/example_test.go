package leases_test

import (
	"context"
	"errors"
	"fmt"
	"os"
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
	defer lease.Return(ctx)

	select {
	case <-lease.Lost(): // a long job outlives its lease
		fmt.Println("expired:", errors.Is(lease.Err(), leases.ErrExpired))
	case <-time.After(10 * time.Second):
		fmt.Println("still held")
	}
	// Output: expired: true
}
