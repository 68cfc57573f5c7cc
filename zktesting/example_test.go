package zktesting_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// A server of its own for a command or a demo: Start, connect, use a
// recipe, Close. In a test, zktesting.NewServer(t) does the same and stops
// the server when the test ends.
func ExampleStart() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	server, err := zktesting.Start(ctx)
	if err != nil {
		fmt.Println("no ZooKeeper installed:", err)
		return
	}
	defer server.Close()

	client, err := framework.Connect(ctx, []string{server.Addr()})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	lock, err := mutex.New(client, "/locks/billing")
	if err != nil {
		fmt.Println(err)
		return
	}
	hold, err := lock.Acquire(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("held")
	if err := hold.Release(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("released")
	// Output:
	// held
	// released
}

// A three-member ensemble; stopping the leader moves its clients to the
// others in the same session.
func ExampleStartEnsemble() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ensemble, err := zktesting.StartEnsemble(ctx, 3)
	if err != nil {
		fmt.Println("no ZooKeeper installed:", err)
		return
	}
	defer ensemble.Close()

	client, err := framework.Connect(ctx, ensemble.Addrs())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	session := client.Session()
	leader, err := ensemble.Leader(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := ensemble.StopMember(leader); err != nil {
		fmt.Println(err)
		return
	}
	if _, _, err := client.Exists(ctx, "/"); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("same session:", client.Session() == session)
	// Output: same session: true
}
