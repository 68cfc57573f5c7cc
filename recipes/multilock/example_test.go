package multilock_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/multilock"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
)

// Move money between two accounts, each guarded by a lock of its own,
// while holding both; every process sorts the locks by path (NewSorted),
// so two transfers in opposite directions cannot deadlock. A shared
// configuration is read under its read lock at the same time.
func ExampleNewSorted() {
	ctx := context.Background()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ",")) // e.g. "127.0.0.1:2181"
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()

	to, err := mutex.New(client, "/examples/multilock/accounts/bob")
	if err != nil {
		fmt.Println(err)
		return
	}
	from, err := mutex.New(client, "/examples/multilock/accounts/alice")
	if err != nil {
		fmt.Println(err)
		return
	}
	config, err := rwlock.New(client, "/examples/multilock/config")
	if err != nil {
		fmt.Println(err)
		return
	}
	lock, err := multilock.NewSorted(multilock.Mutex(to), multilock.Mutex(from), multilock.Read(config))
	if err != nil {
		fmt.Println(err)
		return
	}
	hold, err := lock.AcquireTimeout(ctx, 10*time.Second)
	if errors.Is(err, multilock.ErrNotAcquired) {
		fmt.Println("someone else holds one of the locks; nothing is held")
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	defer hold.Release(ctx)

	fmt.Println("holding", lock.Paths())
	work := time.After(10 * time.Millisecond) // the transfer
	select {
	case <-hold.Lost():
		fmt.Println("lost a lock:", hold.Err())
	case <-work:
		fmt.Println("transfer done under both account locks")
	}
	// Output:
	// holding [/examples/multilock/accounts/alice /examples/multilock/accounts/bob /examples/multilock/config]
	// transfer done under both account locks
}
