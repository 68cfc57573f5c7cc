package sharedcount_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
)

// Increment a count shared with other processes (Go or Curator) by
// compare-and-set: read, then write against the version read, and try
// again if another writer came first.
func ExampleSharedCount_TrySet() {
	ctx := context.Background()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ",")) // e.g. "127.0.0.1:2181"
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	count, err := sharedcount.New(client, "/examples/sharedcount/visits", 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := count.Set(ctx, 41); err != nil {
		fmt.Println(err)
		return
	}
	for {
		v, err := count.Get(ctx)
		if err != nil {
			fmt.Println(err)
			return
		}
		ok, err := count.TrySet(ctx, v.Count+1, v.Version)
		if err != nil { // ErrOutcomeUnknown too: trying again could count twice
			fmt.Println(err)
			return
		}
		if ok {
			fmt.Println("count:", v.Count+1)
			return
		}
	}
	// Output: count: 42
}

// Follow a count until a condition holds: the channel gives the current
// value, then each change.
func ExampleSharedCount_Watch() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ","))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	count, err := sharedcount.New(client, "/examples/sharedcount/ready", 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := count.Set(ctx, 0); err != nil {
		fmt.Println(err)
		return
	}
	values, err := count.Watch(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	go func() { _ = count.Set(ctx, 3) }() // another party; ends after one write
	for v := range values {
		if v.Count >= 3 {
			fmt.Println("ready:", v.Count)
			break
		}
	}
	// Output: ready: 3
}
