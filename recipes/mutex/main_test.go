package mutex_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// Helpers shared by the integration tests of every package.
var (
	connect     = zktest.Connect
	testContext = zktest.Context
	children    = zktest.Children
	waitClosed  = zktest.WaitClosed
)

// heldTimeout bounds a timed acquire that is to find the lock held and say
// ErrNotAcquired: it must outlast the answers that show the lock held. A
// loaded machine answered later than the 100 to 300 ms these acquires had,
// and they rightly said ErrUnreachable (the deadline ran out before the
// server answered). The lock stays held throughout, so the acquire waits
// it out whatever it is.
const heldTimeout = time.Second

// participantNodes returns the participants' nodes, in order.
func participantNodes(ps []mutex.Participant) []string {
	nodes := make([]string, len(ps))
	for i, p := range ps {
		nodes[i] = p.Node
	}
	return nodes
}

func newMutex(t testing.TB, c *framework.Client, path string, opts ...mutex.Option) *mutex.Mutex {
	t.Helper()
	m, err := mutex.New(c, path, opts...)
	require.NoError(t, err)
	return m
}

// waitPaths are the two ways a waiter waits: through the directory's
// persistent watch (ZooKeeper 3.6+), and with one-shot watches, as on an
// older server, which a proxy made old stands for.
var waitPaths = []struct {
	name string
	old  bool
}{{"directory watch", false}, {"one-shot watches", true}}

// makeOld makes the server behind proxy look like ZooKeeper 3.5: no
// addWatch, no multi-read, no setWatches2.
func makeOld(proxy *zktest.Proxy) { proxy.MakeOld() }

// waiting reports whether the one waiter behind proxy has armed its
// watches: on the old path, getDataWatches getData requests; on the new,
// the directory watch and the listing that follows it.
func waiting(proxy *zktest.Proxy, old bool, getDataWatches int64) bool {
	if old {
		return proxy.Requests(zktest.OpGetData) >= getDataWatches
	}
	return proxy.Requests(zktest.OpAddWatch) == 1 && proxy.Requests(zktest.OpGetChildren2) >= 2
}
