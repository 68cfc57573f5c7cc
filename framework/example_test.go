package framework_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Connect, follow the connection's states, and create a protected
// ephemeral-sequential node that survives a lost answer without a
// duplicate.
func ExampleConnect() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ","), // e.g. "127.0.0.1:2181"
		framework.WithSessionTimeout(10*time.Second),
		framework.WithNamespace("/examples/framework"),
		framework.WithRetryPolicy(framework.ExponentialBackoff(100*time.Millisecond, 2*time.Second, 5)))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	stop := client.AddListener(func(s framework.StateChange) {
		fmt.Println("connection:", s.State)
	})
	defer stop()

	node, err := client.CreateProtected(ctx, "/workers/worker-", []byte("host-1"),
		framework.EphemeralSequential, framework.WithParents())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(node.Session == client.Session(), len(node.ProtectionID))
	// Output: true 36
}

// Read how long the session is proven alive: the lease a hold keeps.
func ExampleSession_LeaseDeadline() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ","),
		framework.WithSessionTimeout(10*time.Second),
		framework.WithLeaseMargin(0.1)) // the client's clock may run up to 10 % slow
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()

	deadline, ok := client.Session().LeaseDeadline()
	left := time.Until(deadline)
	fmt.Println(ok, left > 0 && left <= 9*time.Second)
	// Output: true true
}
