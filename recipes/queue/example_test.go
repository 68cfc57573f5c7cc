package queue_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

// A producer puts work; a lock-safe consumer, Go or Curator's, takes each
// item and deletes it only after its function has returned.
func ExampleQueue() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ",")) // e.g. "127.0.0.1:2181"
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	jobs, err := queue.New(client, "/examples/queue/jobs", queue.StringCodec{},
		queue.WithLockPath("/examples/queue/jobs-locks"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer jobs.Close(ctx)
	for _, job := range []string{"resize", "upload"} {
		if err := jobs.Put(ctx, job); err != nil {
			fmt.Println(err)
			return
		}
	}
	done := make(chan struct{})
	consumer, err := jobs.NewConsumer(func(ctx context.Context, job string) error {
		fmt.Println("job:", job)
		if job == "upload" {
			close(done)
		}
		return nil // an error would give the job back (queue.Requeue)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := consumer.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer consumer.Close(ctx)
	<-done
	// Output:
	// job: resize
	// job: upload
}

// A transactional consumer applies each item's effect in ZooKeeper in the
// transaction that deletes the item: exactly once.
func ExampleQueue_NewTxConsumer() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ","))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	if err := client.EnsurePath(ctx, "/examples/queue/orders-done"); err != nil {
		fmt.Println(err)
		return
	}
	orders, err := queue.New(client, "/examples/queue/orders", queue.StringCodec{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := orders.Put(ctx, "order-7"); err != nil {
		fmt.Println(err)
		return
	}
	consumer, err := orders.NewTxConsumer(func(ctx context.Context, order string) ([]framework.Op, error) {
		return []framework.Op{framework.CreateOp("/examples/queue/orders-done/"+order, nil, framework.Persistent)}, nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := consumer.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer consumer.Close(ctx)
	for {
		ok, _, changed, err := client.ExistsW(ctx, "/examples/queue/orders-done/order-7")
		if err != nil || ok {
			fmt.Println("done:", ok, err)
			return
		}
		<-changed
	}
	// Output: done: true <nil>
}

// Items of a priority queue go lowest number first.
func ExamplePriorityQueue() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ","))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	alerts, err := queue.NewPriorityQueue(client, "/examples/queue/alerts", queue.StringCodec{})
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = alerts.Put(ctx, "disk 80%", 5)
	_ = alerts.Put(ctx, "disk full", -10)
	got := make(chan string, 2)
	consumer, err := alerts.NewConsumer(func(ctx context.Context, alert string) error {
		got <- alert
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = consumer.Start(ctx)
	defer consumer.Close(ctx)
	fmt.Println(<-got)
	fmt.Println(<-got)
	// Output:
	// disk full
	// disk 80%
}

// A simple queue of bytes, ZooKeeper's own recipe.
func ExampleSimple() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := framework.Connect(ctx, strings.Split(os.Getenv("ZK_SERVERS"), ","))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	q, err := queue.NewSimple(client, "/examples/queue/simple")
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = q.Offer(ctx, []byte("hello"))
	data, err := q.Take(ctx)
	fmt.Println(string(data), err)
	// Output: hello <nil>
}
