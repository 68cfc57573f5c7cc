package rwlock_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
)

// Readers share the lock; a writer waits for them, and holds it alone.
// Each stops working if its hold is lost.
func ExampleReadWriteLock() {
	ctx := context.Background()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ",")) // e.g. "127.0.0.1:2181"
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()

	lock, err := rwlock.New(client, "/examples/rwlock/catalog")
	if err != nil {
		fmt.Println(err)
		return
	}
	read, err := lock.ReadLock().AcquireTimeout(ctx, 10*time.Second)
	if errors.Is(err, rwlock.ErrNotAcquired) {
		fmt.Println("a writer holds the lock")
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	select {
	case <-read.Lost():
		fmt.Println("lost the read lock:", read.Err())
	case <-time.After(10 * time.Millisecond): // the reading
		fmt.Println("read under the lock")
	}
	if err := read.Release(ctx); err != nil {
		fmt.Println(err)
	}

	write, err := lock.WriteLock().AcquireTimeout(ctx, 10*time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer write.Release(ctx)
	fmt.Println("writing alone")
	// Output:
	// read under the lock
	// writing alone
}

// The write holder may downgrade: take the read lock, then release the
// write lock. No writer gets in between. The way back is refused.
func ExampleLock_downgrade() {
	ctx := context.Background()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ","))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	lock, err := rwlock.New(client, "/examples/rwlock/downgrade")
	if err != nil {
		fmt.Println(err)
		return
	}
	write, err := lock.WriteLock().Acquire(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	read, err := lock.ReadLock().Acquire(ctx) // held at once, at the writer's place
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := write.Release(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer read.Release(ctx)
	_, err = lock.WriteLock().Acquire(ctx)
	fmt.Println("upgrade refused:", errors.Is(err, rwlock.ErrUpgrade))
	// Output: upgrade refused: true
}
