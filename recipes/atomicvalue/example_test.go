package atomicvalue_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/atomicvalue"
)

// Count with a number shared by Go and Curator processes: an increment
// tries optimistically, then under a lock, and says whether it succeeded.
func ExampleLong_Increment() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ",")) // e.g. "127.0.0.1:2181"
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	visits, err := atomicvalue.NewLong(client, "/examples/atomicvalue/visits",
		atomicvalue.WithPromotedToLock(atomicvalue.PromotedToLock{Path: "/examples/atomicvalue/visits-lock"}))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := visits.ForceSet(ctx, 41); err != nil {
		fmt.Println(err)
		return
	}
	r, err := visits.Increment(ctx)
	switch {
	case errors.Is(err, atomicvalue.ErrOutcomeUnknown):
		fmt.Println("the answer was lost: it counted once or not at all; do not try again")
	case err != nil:
		fmt.Println(err)
	case !r.Succeeded:
		fmt.Println("too much contention: nothing written")
	default:
		fmt.Println("visits:", r.PostValue)
	}
	// Output: visits: 42
}

// Hand out unique numbers, taking them from the shared counter ten at a
// time.
func ExampleCachedLong_Next() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ","))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	const path = "/examples/atomicvalue/ids"
	counter, err := atomicvalue.NewLong(client, path)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := counter.ForceSet(ctx, 0); err != nil { // start the example afresh
		fmt.Println(err)
		return
	}
	ids, err := atomicvalue.NewCachedLong(client, path, 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 3 {
		r, err := ids.Next(ctx)
		if err != nil || !r.Succeeded {
			fmt.Println("no id:", err)
			return
		}
		fmt.Println("id", r.PostValue)
	}
	// Output:
	// id 1
	// id 2
	// id 3
}
