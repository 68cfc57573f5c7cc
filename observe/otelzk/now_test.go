package otelzk_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/observe/otelzk"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// metrics is an Observer recording on a manual reader, for tests that read
// what it recorded.
type metrics struct {
	t        *testing.T
	reader   *sdkmetric.ManualReader
	observer *otelzk.Observer
}

func newMetrics(t *testing.T) *metrics {
	reader := sdkmetric.NewManualReader()
	observer, err := otelzk.New(otelzk.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))))
	require.NoError(t, err)
	return &metrics{t: t, reader: reader, observer: observer}
}

// collect reads every metric recorded so far.
func (m *metrics) collect() metricdata.ResourceMetrics {
	var rm metricdata.ResourceMetrics
	require.NoError(m.t, m.reader.Collect(context.Background(), &rm))
	return rm
}

// sums returns the points of the int64 sum named name, by the value of
// the attribute key (summed over the other attributes); nil if the metric
// was not recorded.
func (m *metrics) sums(name string, key attribute.Key) map[string]int64 {
	metric, ok := find(m.collect(), name)
	if !ok {
		return nil
	}
	out := map[string]int64{}
	for _, p := range metric.Data.(metricdata.Sum[int64]).DataPoints {
		v, _ := p.Attributes.Value(key)
		out[v.String()] += p.Value
	}
	return out
}

// total returns the sum of the points of the int64 sum named name.
func (m *metrics) total(name string) int64 {
	var n int64
	for _, v := range m.sums(name, "") {
		n += v
	}
	return n
}

// Holds, leases and terms held now are counted by recipe, and go back to
// zero when given back; the semaphore's guard lock, a part of the
// semaphore's acquire, is no recipe of its own in any metric.
func TestObserver_CountsHoldsLeasesAndTermsHeldNow(t *testing.T) {
	server := zktesting.NewServer(t)
	m := newMetrics(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, err := framework.Connect(ctx, []string{server.Addr()}, framework.WithObserver(m.observer))
	require.NoError(t, err)
	defer client.Close()

	lock, err := mutex.New(client, "/now/mutex")
	require.NoError(t, err)
	mh, err := lock.Acquire(ctx)
	require.NoError(t, err)
	writes, err := rwlock.New(client, "/now/rw-write")
	require.NoError(t, err)
	wh, err := writes.WriteLock().Acquire(ctx)
	require.NoError(t, err)
	reads, err := rwlock.New(client, "/now/rw-read")
	require.NoError(t, err)
	rh, err := reads.ReadLock().Acquire(ctx)
	require.NoError(t, err)
	sem, err := semaphore.New(client, "/now/semaphore", 3)
	require.NoError(t, err)
	leases, err := sem.AcquireN(ctx, 2)
	require.NoError(t, err)
	latch, err := leader.NewLatch(client, "/now/latch")
	require.NoError(t, err)
	require.NoError(t, latch.Start(ctx))
	_, err = latch.Await(ctx)
	require.NoError(t, err)

	held := map[string]int64{"mutex": 1, "rwlock.write": 1, "rwlock.read": 1, "semaphore": 2, "leader.latch": 1}
	assert.Equal(t, held, m.sums("zkrecipes.lock.hold.count", otelzk.RecipeKey))
	require.Eventually(t, func() bool { // a term is told on the latch's goroutine
		return m.total("zkrecipes.leader.term.count") == 1
	}, 10*time.Second, 10*time.Millisecond)
	for recipe, n := range m.sums("zkrecipes.lock.wait.count", otelzk.RecipeKey) {
		assert.Zero(t, n, "acquires of %s under way", recipe)
	}
	require.NoError(t, mh.Release(ctx))
	require.NoError(t, wh.Release(ctx))
	require.NoError(t, rh.Release(ctx))
	require.NoError(t, sem.Release(ctx, leases...))
	require.NoError(t, latch.Close(ctx))
	for recipe := range held {
		held[recipe] = 0
	}
	assert.Equal(t, held, m.sums("zkrecipes.lock.hold.count", otelzk.RecipeKey))
	require.Eventually(t, func() bool {
		return m.total("zkrecipes.leader.term.count") == 0
	}, 10*time.Second, 10*time.Millisecond)
	for _, name := range []string{"zkrecipes.lock.wait.duration", "zkrecipes.lock.hold.duration"} {
		metric, ok := find(m.collect(), name)
		require.True(t, ok, name)
		for _, p := range metric.Data.(metricdata.Histogram[float64]).DataPoints {
			recipe, _ := p.Attributes.Value(otelzk.RecipeKey)
			assert.NotEqual(t, "semaphore.guard", recipe.AsString(), name)
		}
	}
}

// Each connection state has a series counting the clients in it, zeros
// included, read when the metrics are collected: a partitioned client
// moves from connected to suspended to lost and back, and a closed client
// is counted no more.
func TestObserver_CountsClientsByConnectionState(t *testing.T) {
	server := zktesting.NewServer(t)
	m := newMetrics(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	steady, err := framework.Connect(ctx, []string{server.Addr()}, framework.WithObserver(m.observer))
	require.NoError(t, err)
	defer steady.Close()
	faults := zktesting.NewFaults()
	cut, err := framework.Connect(ctx, []string{server.Addr()}, framework.WithObserver(m.observer),
		framework.WithSessionTimeout(2*time.Second), framework.WithZKOptions(zk.WithDialer(faults.Dial)))
	require.NoError(t, err)
	defer cut.Close()

	states := func() map[string]int64 { return m.sums("zkrecipes.client.connection.count", otelzk.StateKey) }
	want := func(connected, suspended, lost int64) map[string]int64 {
		return map[string]int64{"connected": connected, "suspended": suspended, "lost": lost, "read_only": 0}
	}
	eventually := func(w map[string]int64, what string) {
		t.Helper()
		require.Eventually(t, func() bool { return assert.ObjectsAreEqual(w, states()) },
			20*time.Second, 10*time.Millisecond, "%s: %v", what, states())
	}
	eventually(want(2, 0, 0), "both connected") // a client is known from its first state
	faults.Pause()
	eventually(want(1, 1, 0), "one partitioned")
	eventually(want(1, 0, 1), "its session given up")
	faults.Resume()
	eventually(want(2, 0, 0), "back in a new session")
	require.NoError(t, cut.Close())
	assert.Equal(t, want(1, 0, 0), states(), "the closed client")
}

// No attribute value carries a space, whatever the call: a multi read, a
// question of what changed since a zxid, a persistent watch taken off.
func TestObserver_AttributeValuesCarryNoSpace(t *testing.T) {
	server := zktesting.NewServer(t)
	m := newMetrics(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, err := framework.Connect(ctx, []string{server.Addr()}, framework.WithObserver(m.observer))
	require.NoError(t, err)
	defer client.Close()

	_, err = client.Create(ctx, "/spaces", nil, framework.Persistent)
	require.NoError(t, err)
	_, stat, err := client.Get(ctx, "/spaces")
	require.NoError(t, err)
	_, err = client.MultiRead(ctx, framework.GetOp("/spaces"), framework.ChildrenOp("/spaces"))
	require.NoError(t, err)
	_, err = client.ChangedSince(ctx, stat.Czxid, []string{"/spaces"}, nil)
	require.NoError(t, err)
	w, err := client.Watch(ctx, "/spaces", framework.WatchPersistent)
	require.NoError(t, err)
	require.NoError(t, w.Close(ctx))

	ops := func() map[string]int64 {
		metric, ok := find(m.collect(), "zookeeper.client.request.duration")
		require.True(t, ok)
		out := map[string]int64{}
		for _, p := range metric.Data.(metricdata.Histogram[float64]).DataPoints {
			op, _ := p.Attributes.Value(otelzk.OperationKey)
			out[op.AsString()] += int64(p.Count)
		}
		return out
	}
	require.Eventually(t, func() bool {
		for op := range ops() {
			if strings.HasPrefix(op, "remove") {
				return true
			}
		}
		return false
	}, 10*time.Second, 10*time.Millisecond, "the watch is taken off the server a second after its Close: %v", ops())
	for _, op := range []string{"multi_read", "changed_since", "remove_watch"} {
		assert.Positive(t, ops()[op], "%s in %v", op, ops())
	}
	for _, sm := range m.collect().ScopeMetrics {
		for _, metric := range sm.Metrics {
			for _, attrs := range attributeSets(metric.Data) {
				for _, kv := range attrs.ToSlice() {
					assert.NotContains(t, kv.Value.String(), " ", "%s: %s", metric.Name, kv.Key)
				}
			}
		}
	}
}

// attributeSets returns the attributes of each point of data.
func attributeSets(data metricdata.Aggregation) []attribute.Set {
	var out []attribute.Set
	switch d := data.(type) {
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Attributes)
		}
	case metricdata.Gauge[float64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Attributes)
		}
	case metricdata.Histogram[float64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Attributes)
		}
	default:
		panic(fmt.Sprintf("an aggregation the test does not know: %T", data))
	}
	return out
}
