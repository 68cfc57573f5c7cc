package leader_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// Take part in an election, act while leading, and stop acting the moment
// the term ends, whatever ends it.
func ExampleLatch() {
	ctx := context.Background()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ",")) // e.g. "127.0.0.1:2181"
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()

	latch, err := leader.NewLatch(client, "/examples/leader/scheduler", leader.WithID("scheduler-1"))
	if err != nil {
		fmt.Println(err)
		return
	}
	// The latch takes part until Close, or until this context ends.
	if err := latch.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer latch.Close(ctx)

	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	term, err := latch.Await(wait)
	if err != nil {
		fmt.Println("not leading:", err)
		return
	}
	fmt.Println("leading as", term.ID())
	select {
	case <-term.Lost():
		fmt.Println("term ended:", term.Err())
	case <-time.After(10 * time.Millisecond): // the leader's work
		fmt.Println("work done as leader")
	}
	// Output:
	// leading as scheduler-1
	// work done as leader
}

// Write only while leading, atomically on the server: the guard fails the
// transaction once the term's node is gone, so a leader that lost its term
// without knowing yet cannot overwrite its successor's writes.
func ExampleLeadership_Guard() {
	ctx := context.Background()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ","))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	latch, err := leader.NewLatch(client, "/examples/leader/config-writer")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := latch.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer latch.Close(ctx)
	term, err := latch.Await(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := client.Create(ctx, "/examples/leader/config", nil, framework.Persistent); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		fmt.Println(err)
		return
	}
	_, err = client.Multi(ctx, term.Guard(), framework.SetOp("/examples/leader/config", []byte("v2"), -1))
	fmt.Println("written while leading:", err == nil)
	// Output: written while leading: true
}
