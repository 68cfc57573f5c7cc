package otelzk_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/observe/otelzk"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// A mutex acquired and released on a real server shows up as metrics
// (requests by operation, the wait, the hold, the lease margin, the
// states) and as an acquire span under the caller's span.
func TestObserver_RecordsMetricsAndSpansOfAMutex(t *testing.T) {
	server := zktesting.NewServer(t)
	reader := sdkmetric.NewManualReader()
	meters := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	spans := tracetest.NewSpanRecorder()
	tracers := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	observer, err := otelzk.New(otelzk.WithMeterProvider(meters), otelzk.WithTracerProvider(tracers), otelzk.WithPathAttribute())
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, err := framework.Connect(ctx, []string{server.Addr()}, framework.WithObserver(observer))
	require.NoError(t, err)
	defer client.Close()
	lock, err := mutex.New(client, "/otelzk/lock")
	require.NoError(t, err)

	ctx, parent := tracers.Tracer("test").Start(ctx, "work")
	hold, err := lock.Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, hold.Release(ctx))
	parent.End()

	var rm metricdata.ResourceMetrics
	require.Eventually(t, func() bool {
		require.NoError(t, reader.Collect(context.Background(), &rm))
		_, ok := find(rm, "zkrecipes.client.state.changes")
		return ok // states come on a goroutine of their own
	}, 10*time.Second, 10*time.Millisecond)

	requests, ok := find(rm, "zookeeper.client.request.duration")
	require.True(t, ok)
	ops := map[string]uint64{}
	for _, p := range requests.Data.(metricdata.Histogram[float64]).DataPoints {
		op, _ := p.Attributes.Value(otelzk.OperationKey)
		ops[op.AsString()] += p.Count
	}
	assert.Positive(t, ops["create"], "%v", ops)
	assert.Positive(t, ops["delete"], "%v", ops)

	wait, ok := find(rm, "zkrecipes.lock.wait.duration")
	require.True(t, ok)
	wp := wait.Data.(metricdata.Histogram[float64]).DataPoints
	require.Len(t, wp, 1)
	assert.Equal(t, uint64(1), wp[0].Count)
	outcome, _ := wp[0].Attributes.Value(otelzk.OutcomeKey)
	assert.Equal(t, "granted", outcome.AsString())
	path, _ := wp[0].Attributes.Value(otelzk.PathKey)
	assert.Equal(t, "/otelzk/lock", path.AsString())

	held, ok := find(rm, "zkrecipes.lock.hold.duration")
	require.True(t, ok)
	hp := held.Data.(metricdata.Histogram[float64]).DataPoints
	require.Len(t, hp, 1)
	cause, _ := hp[0].Attributes.Value(otelzk.CauseKey)
	assert.Equal(t, "released", cause.AsString())
	_, lost := find(rm, "zkrecipes.lock.losses")
	assert.False(t, lost, "nothing was lost")

	margin, ok := find(rm, "zkrecipes.session.lease.margin")
	require.True(t, ok)
	mp := margin.Data.(metricdata.Gauge[float64]).DataPoints
	require.Len(t, mp, 1)
	assert.Positive(t, mp[0].Value)
	assert.LessOrEqual(t, mp[0].Value, client.SessionTimeout().Seconds())

	var acquire sdktrace.ReadOnlySpan
	for _, s := range spans.Ended() {
		if s.Name() == "zkrecipes.acquire" {
			acquire = s
		}
	}
	require.NotNil(t, acquire, "an acquire span")
	assert.Equal(t, parent.SpanContext().SpanID(), acquire.Parent().SpanID())
	assert.True(t, acquire.EndTime().After(acquire.StartTime()))
}

// find returns the metric named name.
func find(rm metricdata.ResourceMetrics, name string) (metricdata.Metrics, bool) {
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m, true
			}
		}
	}
	return metricdata.Metrics{}, false
}
