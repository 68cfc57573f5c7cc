package node_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/node"
)

// Announce this process in a group and read who else is in it.
func ExampleGroupMember() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ",")) // e.g. "127.0.0.1:2181"
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	member, err := node.NewGroupMember(client, "/example/node/workers", "worker-1", []byte("10.0.0.7:8080"))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := member.Start(context.Background()); err != nil { // a member until Close
		fmt.Println(err)
		return
	}
	defer member.Close(ctx)
	if err := member.AwaitJoined(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(member.Members()["worker-1"]))
	// Output: 10.0.0.7:8080
}
