package barrier_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/barrier"
)

// Hold workers back until a coordinator lets them go.
func ExampleBarrier() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ",")) // e.g. "127.0.0.1:2181"
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	gate, err := barrier.New(client, "/examples/barrier/gate")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := gate.Set(ctx); err != nil {
		fmt.Println(err)
		return
	}
	go func() { _ = gate.Remove(ctx) }() // the coordinator; ends after one delete
	if err := gate.Wait(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("through the gate")
	// Output: through the gate
}

// Three workers start together and finish together; in production each is
// a process of its own, Go or Java.
func ExampleDouble_Enter() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ","))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	round, err := barrier.NewDouble(client, "/examples/barrier/round", 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range 3 {
		wg.Add(1)
		go func() { // one worker; ends once every worker has left
			defer wg.Done()
			member, err := round.Enter(ctx) // waits for all three
			if err != nil {
				fmt.Println(err)
				return
			}
			mu.Lock()
			done++ // the work
			mu.Unlock()
			if err := member.Leave(ctx); err != nil { // waits for all three
				fmt.Println(err)
			}
		}()
	}
	wg.Wait()
	fmt.Println("workers done:", done)
	// Output: workers done: 3
}
