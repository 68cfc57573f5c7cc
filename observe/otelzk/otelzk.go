package otelzk

import (
	"errors"
	"fmt"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/zkrecipes/zkrecipes/framework"
)

// ScopeName is the instrumentation scope of the meter and the tracer.
const ScopeName = "github.com/zkrecipes/zkrecipes/observe/otelzk"

// Attribute keys.
const (
	OperationKey = attribute.Key("zookeeper.operation")
	ErrorTypeKey = attribute.Key("error.type")
	StateKey     = attribute.Key("zkrecipes.connection.state")
	NewSession   = attribute.Key("zkrecipes.session.new")
	RecipeKey    = attribute.Key("zkrecipes.recipe")
	PathKey      = attribute.Key("zkrecipes.path")
	OutcomeKey   = attribute.Key("zkrecipes.acquire.outcome")
	CauseKey     = attribute.Key("zkrecipes.hold.cause")
	NodeKey      = attribute.Key("zkrecipes.node")
	IDKey        = attribute.Key("zkrecipes.leader.participant")
)

// Observer is a framework.Observer that records OpenTelemetry metrics and
// spans. It is safe for concurrent use, and may serve several clients.
type Observer struct {
	framework.NoopObserver
	tracer trace.Tracer
	paths  bool

	requests   metric.Float64Histogram
	retries    metric.Int64Counter
	states     metric.Int64Counter
	reconnects metric.Int64Counter
	wait       metric.Float64Histogram
	waits      metric.Int64UpDownCounter
	hold       metric.Float64Histogram
	holds      metric.Int64UpDownCounter
	losses     metric.Int64Counter
	term       metric.Float64Histogram
	terms      metric.Int64UpDownCounter

	mu       sync.Mutex
	sessions map[*framework.Client]*framework.Session // for the lease gauge
	clients  map[*framework.Client]struct{}           // for the connection count
}

var _ framework.Observer = (*Observer)(nil)

// Option configures an Observer.
type Option func(*options)

type options struct {
	meters  metric.MeterProvider
	tracers trace.TracerProvider
	paths   bool
}

// WithMeterProvider sets where the metrics go. Default: the global
// provider (otel.GetMeterProvider).
func WithMeterProvider(p metric.MeterProvider) Option {
	return func(o *options) { o.meters = p }
}

// WithTracerProvider sets where the spans go. Default: the global
// provider (otel.GetTracerProvider).
func WithTracerProvider(p trace.TracerProvider) Option {
	return func(o *options) { o.tracers = p }
}

// WithPathAttribute adds the recipe's path (zkrecipes.path) to the
// attributes of the lock and leader metrics. Spans always carry it.
// Default: metrics carry no path, so that a program that locks one path
// per entity does not make a time series of each.
func WithPathAttribute() Option {
	return func(o *options) { o.paths = true }
}

// New returns an Observer that records on the providers of opts; give it
// to framework.WithObserver. It fails only if an instrument cannot be made.
func New(opts ...Option) (*Observer, error) {
	o := options{meters: otel.GetMeterProvider(), tracers: otel.GetTracerProvider()}
	for _, opt := range opts {
		opt(&o)
	}
	obs := &Observer{
		tracer:   o.tracers.Tracer(ScopeName),
		paths:    o.paths,
		sessions: make(map[*framework.Client]*framework.Session),
		clients:  make(map[*framework.Client]struct{}),
	}
	if err := obs.instruments(o.meters.Meter(ScopeName)); err != nil {
		return nil, fmt.Errorf("otelzk: %w", err)
	}
	return obs, nil
}

// durationBuckets suit ZooKeeper: a request takes a millisecond or so, a
// wait for a lock up to minutes.
var durationBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300}

func (o *Observer) instruments(m metric.Meter) error {
	var errs []error
	otelErr := func(err *error) {
		if *err != nil {
			errs = append(errs, *err)
		}
	}
	seconds := func(name, desc string) metric.Float64Histogram {
		h, err := m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc),
			metric.WithExplicitBucketBoundaries(durationBuckets...))
		otelErr(&err)
		return h
	}
	counter := func(name, desc string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithDescription(desc))
		otelErr(&err)
		return c
	}
	upDown := func(name, unit, desc string) metric.Int64UpDownCounter {
		c, err := m.Int64UpDownCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		otelErr(&err)
		return c
	}
	o.requests = seconds("zookeeper.client.request.duration", "Duration of each try of a ZooKeeper call.")
	o.retries = counter("zkrecipes.client.retries", "Retries of ZooKeeper calls after a retryable error.")
	o.states = counter("zkrecipes.client.state.changes", "Connection state changes.")
	o.reconnects = counter("zkrecipes.client.reconnects", "Reconnections, to the same session or a new one.")
	o.wait = seconds("zkrecipes.lock.wait.duration", "Time from an acquire's start to its grant or failure.")
	o.waits = upDown("zkrecipes.lock.wait.count", "{acquire}", "Acquires under way.")
	o.hold = seconds("zkrecipes.lock.hold.duration", "Time from a hold's start to its end.")
	o.holds = upDown("zkrecipes.lock.hold.count", "{hold}", "Holds held now: lock holds, leases, leaders' nodes.")
	o.losses = counter("zkrecipes.lock.losses", "Holds lost, by cause.")
	o.term = seconds("zkrecipes.leader.term.duration", "Length of terms of leadership.")
	o.terms = upDown("zkrecipes.leader.term.count", "{term}", "Terms of leadership under way.")
	_, err := m.Float64ObservableGauge("zkrecipes.session.lease.margin", metric.WithUnit("s"),
		metric.WithDescription("Time left on the session lease: the server cannot expire the session before it runs out."),
		metric.WithFloat64Callback(o.observeLeases))
	otelErr(&err)
	_, err = m.Int64ObservableUpDownCounter("zkrecipes.client.connection.count", metric.WithUnit("{client}"),
		metric.WithDescription("Clients in each connection state, read at collection."),
		metric.WithInt64Callback(o.observeConnections))
	otelErr(&err)
	return errors.Join(errs...)
}
