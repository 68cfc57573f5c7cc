package zktest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// Integration marks a test that needs a ZooKeeper server: under -short it
// is skipped. Servers, NewServer and NewEnsemble call it themselves.
func Integration(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("zktest: integration test (needs a ZooKeeper server); skipped under -short")
	}
}

// NewServer starts a standalone server of the installed ZooKeeper for this
// test alone, closed when the test ends: for tests that stop or restart it.
// It logs its starts and stops to the test's output.
func NewServer(t testing.TB, opts ...zktesting.Option) *zktesting.Server {
	t.Helper()
	Integration(t)
	return zktesting.NewServer(t, opts...)
}

// NewEnsemble starts an ensemble of n servers of the installed ZooKeeper
// for this test alone, closed when the test ends.
func NewEnsemble(t testing.TB, n int, opts ...zktesting.Option) *zktesting.Ensemble {
	t.Helper()
	Integration(t)
	return zktesting.NewEnsemble(t, n, opts...)
}

// UniquePath returns "/zktest/<test name>-<random hex>", a path no other call
// returns, for a test's nodes. The test name is reduced to letters, digits,
// '-' and '_'. Neither the path nor its parent /zktest is created.
func UniquePath(t testing.TB) string {
	t.Helper()
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return "/zktest/" + sanitize(t.Name()) + "-" + hex.EncodeToString(b[:])
}

// sanitize replaces every character of name but [A-Za-z0-9_-] with '_'.
func sanitize(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		default:
			return '_'
		}
	}, name)
}

// PacketsReceived returns the count of packets the server at addr has
// received from clients (mntr zk_packets_received), to count the requests a
// call makes. addr may be a connect string, as Servers returns: the counts
// of its servers are summed, since a client talks to one at a time.
func PacketsReceived(t testing.TB, addr string) int64 {
	t.Helper()
	received, _ := ServerPackets(t, addr)
	return received
}

// ServerPackets returns the counts of packets the servers at addr have
// received from clients and sent to them (mntr zk_packets_received and
// zk_packets_sent), read at one moment. Every request is answered once,
// so what is sent beyond what is received is watch notifications, to
// count what a recipe's watches cost. The mntr itself counts as one
// packet received.
func ServerPackets(t testing.TB, addr string) (received, sent int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, server := range strings.Split(addr, ",") {
		stats, err := zktesting.Mntr(ctx, server)
		require.NoError(t, err)
		for key, total := range map[string]*int64{"zk_packets_received": &received, "zk_packets_sent": &sent} {
			n, err := strconv.ParseInt(stats[key], 10, 64)
			require.NoError(t, err, "zktest: %s of %s", key, server)
			*total += n
		}
	}
	return received, sent
}

// ServerKinds runs test against a ZooKeeper 3.6+ server (recursive and
// persistent watches, multi-reads) and against one that looks like 3.5
// (Proxy.MakeOld: one-shot watches only), each through a proxy of its own.
func ServerKinds(t *testing.T, test func(t *testing.T, proxy *Proxy)) {
	for _, kind := range []struct {
		name string
		old  bool
	}{{"recursive watch", false}, {"one-shot watches", true}} {
		t.Run(kind.name, func(t *testing.T) {
			proxy := NewProxy(t, Servers(t))
			if kind.old {
				proxy.MakeOld()
			}
			test(t, proxy)
		})
	}
}
