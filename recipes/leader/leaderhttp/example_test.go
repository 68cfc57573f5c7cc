package leaderhttp_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
	"github.com/zkrecipes/zkrecipes/recipes/leader/leaderhttp"
)

// Serve a latch's health to a readiness probe: 200 while it is healthy,
// 503 once it believes it leads five seconds past its session's lease.
func ExampleHandler() {
	ctx := context.Background()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ",")) // e.g. "127.0.0.1:2181"
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	latch, err := leader.NewLatch(client, "/examples/leaderhttp/scheduler", leader.WithID("scheduler-1"))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := latch.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer latch.Close(ctx)

	mux := http.NewServeMux()
	mux.Handle("/healthz", leaderhttp.Handler(latch, 5*time.Second))
	server := httptest.NewServer(mux) // in a service: http.ListenAndServe(":8080", mux)
	defer server.Close()

	resp, err := http.Get(server.URL + "/healthz")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Print(resp.Status, " ", string(body))
	// Output: 200 OK ok
}
