package leader_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// A scheduler that runs on one replica at a time: the function runs while
// this replica leads, and stops as soon as leadership ends. Its writes
// carry the term's fencing token, so that a store keeping the highest token
// refuses a replica whose term has ended without its knowing.
func ExampleSelector_Run() {
	ctx := context.Background()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ",")) // e.g. "127.0.0.1:2181"
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()

	schedule := func(ctx context.Context) error {
		term, _ := leader.LeadershipFrom(ctx)
		token, err := term.FencingToken(ctx)
		if err != nil {
			return err
		}
		fmt.Println("scheduling as", term.ID(), "with a token:", token > 0)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for runs := 0; runs < 3; runs++ {
			select {
			case <-ctx.Done():
				return context.Cause(ctx) // leadership ended: stop at once
			case <-tick.C:
				// schedule the next job, with token
			}
		}
		return nil // done: hand leadership on
	}
	sel, err := leader.NewSelector(client, "/examples/leader/scheduler", schedule, leader.WithID("replica-1"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sel.Close(ctx)

	err = sel.Run(ctx)
	fmt.Println("term over:", err)
	// Output:
	// scheduling as replica-1 with a token: true
	// term over: <nil>
}

// Watch who leads an election of selectors, Go or Java, without taking
// part in it.
func ExampleObserver_Watch() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ","))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()

	const path = "/examples/leader/observed"
	obs, err := leader.NewObserver(client, path, leader.ObserveSelector())
	if err != nil {
		fmt.Println(err)
		return
	}
	leads := make(chan struct{})
	sel, err := leader.NewSelector(client, path, func(ctx context.Context) error {
		close(leads)
		<-ctx.Done() // the term ends at cancel
		return nil
	}, leader.WithID("replica-2"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sel.Close(ctx)
	if err := sel.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	<-leads

	leaders, err := obs.Watch(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for o := range leaders {
		if o.HasLeader() {
			fmt.Println("leader:", o.Leader.ID)
			return
		}
	}
	// Output: leader: replica-2
}
