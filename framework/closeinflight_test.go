package framework_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// opCreateContainer is the request type of a container's create.
const opCreateContainer int32 = 19

// Calls under way when Close begins end before go-zookeeper's connection
// is closed. Its own Close fails a call at once, while the call's answer
// may still be decoded into the result that the call then reads
// (CreateContainer reads it even after the failure): a data race, which
// -race reports. Here many creates reach the server with their answers
// held, and the answers come as Close begins; round after round, so that
// the old Close meets the race whatever the scheduler does.
func TestClient_CloseEndsTheCallsUnderWayBeforeItClosesTheConnection(t *testing.T) {
	servers := zktest.Servers(t)
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	const rounds, n = 12, 64
	for round := range rounds {
		proxy := zktest.NewProxy(t, servers)
		c := connect(t, proxy.Addr())
		parent := fmt.Sprintf("%s/r%d", dir, round)
		_, err := c.Create(ctx, parent, nil, framework.Persistent, framework.WithParents())
		require.NoError(t, err)
		before := proxy.Requests(opCreateContainer) // the parents'
		proxy.HoldReplies()
		errs := make(chan error, n)
		for i := range n {
			go func() { // ends when the create returns
				_, err := c.Create(ctx, fmt.Sprintf("%s/c%d", parent, i), nil, framework.Container)
				errs <- err
			}()
		}
		require.Eventually(t, func() bool { return proxy.Requests(opCreateContainer) == before+n },
			10*time.Second, 5*time.Millisecond, "round %d: every create is on its way", round)
		closed := make(chan error, 1)
		go func() { closed <- c.Close() }() // ends when Close returns
		proxy.ReleaseReplies()
		require.NoError(t, <-closed)
		_, _, err = c.Exists(ctx, parent)
		require.ErrorIs(t, err, framework.ErrClosed, "round %d: a call after Close", round)
		for range n {
			if err := <-errs; err != nil {
				assert.ErrorIs(t, err, framework.ErrClosed, "round %d", round)
			}
		}
		require.Eventually(t, func() bool { return framework.LinkState(c) == zk.StateDisconnected },
			10*time.Second, 5*time.Millisecond, "round %d: go-zookeeper has read every answer it will", round)
	}
}
