package framework_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// Ordinary reads, carried reads (GetW, MultiRead) and a persistent watch
// run together while the connection is cut every few hundred milliseconds
// and once for longer than the session: every answer that arrives is the
// answer to its own request (each node's data names the node), and the
// watch keeps delivering after each reconnect. Run with -race.
func TestCarrier_EveryAnswerReachesItsCallerThroughCutsAndAnExpiry(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("cuts a connection for several seconds")
	}
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	const timeout = 2 * time.Second
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(timeout),
		framework.WithRetryPolicy(framework.RetryForever(20*time.Millisecond)))
	setup := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	const nodes = 8
	for i := range nodes {
		_, err := setup.Create(ctx, fmt.Sprintf("%s/n%d", dir, i), []byte(fmt.Sprintf("n%d", i)), framework.Persistent, framework.WithParents())
		require.NoError(t, err)
	}
	w, err := c.Watch(ctx, dir, framework.WatchRecursive)
	require.NoError(t, err)
	defer w.Close(ctx)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	answers := 0
	check := func(i int, data []byte, err error) {
		if err != nil {
			return // a cut: the answer is lost, never another's
		}
		assert.Equal(t, fmt.Sprintf("n%d", i), string(data), "the answer to a read of n%d", i)
		mu.Lock()
		answers++
		mu.Unlock()
	}
	for g := range 6 {
		wg.Go(func() { // ends at stop
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				i := (g + k) % nodes
				p := fmt.Sprintf("%s/n%d", dir, i)
				rctx, cancel := context.WithTimeout(ctx, time.Second)
				switch k % 3 {
				case 0:
					data, _, err := c.Get(rctx, p)
					check(i, data, err)
				case 1:
					data, _, _, err := c.GetW(rctx, p)
					check(i, data, err)
				case 2:
					j := (i + 1) % nodes
					res, err := c.MultiRead(rctx, framework.GetOp(p), framework.GetOp(fmt.Sprintf("%s/n%d", dir, j)))
					if err == nil {
						check(i, res[0].Data, res[0].Err)
						check(j, res[1].Data, res[1].Err)
					}
				}
				cancel()
			}
		})
	}
	// Drains the watch until stop.
	events := make(chan framework.WatchEvent, 1024)
	wg.Go(func() {
		for {
			select {
			case ev, ok := <-w.Events():
				if !ok {
					return
				}
				select {
				case events <- ev:
				default:
				}
			case <-stop:
				return
			}
		}
	})
	for k := range 12 {
		time.Sleep(time.Duration(200+k*20) * time.Millisecond)
		proxy.Cut()
	}
	proxy.Pause() // longer than the session: a new one
	time.Sleep(2 * timeout)
	proxy.Resume()
	require.NoError(t, c.WaitConnected(ctx))
	time.Sleep(500 * time.Millisecond)
	close(stop)
	wg.Wait()
	t.Logf("%d answers checked", answers)
	assert.Greater(t, answers, 50)

	// The watch survived it all: a change now is an event.
	_, err = setup.Set(ctx, dir+"/n0", []byte("n0"), -1)
	require.NoError(t, err)
	for {
		select {
		case ev := <-events:
			if ev.Type == framework.NodeDataChanged && ev.Path == dir+"/n0" {
				return
			}
		case ev, ok := <-w.Events():
			require.True(t, ok, "the watch ended: %v", w.Err())
			if ev.Type == framework.NodeDataChanged && ev.Path == dir+"/n0" {
				return
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no event for a change after the faults")
		}
	}
}
