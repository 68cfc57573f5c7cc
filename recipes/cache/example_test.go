package cache_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
)

// Keep a configuration subtree in memory, read it without a request, and
// hear of its changes.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ",")) // e.g. "127.0.0.1:2181"
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	root := "/example/cache/config"
	_ = client.EnsurePath(ctx, root)
	_, _ = client.Create(ctx, root+"/feature", nil, framework.Persistent)
	_, _ = client.Set(ctx, root+"/feature", []byte("on"), -1)

	c, err := cache.New(client, root)
	if err != nil {
		fmt.Println(err)
		return
	}
	changed := make(chan string, 1)
	c.AddListener(cache.ForChildren(root, func(ev cache.Event) {
		if ev.Type == cache.Changed {
			changed <- string(ev.Entry.Data)
		}
	}))
	if err := c.Start(context.Background()); err != nil { // the cache lives until Close
		fmt.Println(err)
		return
	}
	defer c.Close(ctx)
	if err := c.AwaitInitialized(ctx); err != nil {
		fmt.Println(err)
		return
	}

	e, _ := c.Get(root + "/feature")
	fmt.Println("feature:", string(e.Data))
	_, _ = client.Set(ctx, root+"/feature", []byte("off"), -1)
	fmt.Println("now:", <-changed)
	// Output:
	// feature: on
	// now: off
}
