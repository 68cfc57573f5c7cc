package framework_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Follow a subtree with one recursive watch (ZooKeeper 3.6+), and catch
// up with a read after a reconnect; fall back to one-shot watches on an
// older server.
func ExampleClient_Watch() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ","),
		framework.WithNamespace(fmt.Sprintf("/examples/watch-%d", time.Now().UnixNano())))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	if err := client.EnsurePath(ctx, "/config"); err != nil {
		fmt.Println(err)
		return
	}

	w, err := client.Watch(ctx, "/config", framework.WatchRecursive)
	if errors.Is(err, framework.ErrUnimplemented) {
		fmt.Println("before ZooKeeper 3.6: use GetW, ChildrenW")
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close(ctx)

	if _, err := client.Create(ctx, "/config/db", []byte("primary"), framework.Persistent); err != nil {
		fmt.Println(err)
		return
	}
	for ev := range w.Events() {
		switch ev.Type {
		case framework.WatchResumed, framework.WatchSessionChanged:
			// Nothing was sent for what changed meanwhile: read again.
		default:
			fmt.Println(ev.Type, ev.Path)
			return
		}
	}
	// Output: EventNodeCreated /config/db
}

// Read several nodes in one request (ZooKeeper 3.6+; one by one before).
func ExampleClient_MultiRead() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ","),
		framework.WithNamespace(fmt.Sprintf("/examples/multiread-%d", time.Now().UnixNano())))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	if _, err := client.Create(ctx, "/a", []byte("A"), framework.Persistent, framework.WithParents()); err != nil {
		fmt.Println(err)
		return
	}

	results, err := client.MultiRead(ctx, framework.GetOp("/a"), framework.GetOp("/missing"), framework.ChildrenOp("/"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(results[0].Data), results[1].Err != nil, results[2].Children)
	// Output: A true [a]
}
