package otelzk_test

import (
	"context"
	"log"
	"time"

	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/observe/otelzk"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// A client whose requests, states and locks are reported as OpenTelemetry
// metrics, written to stdout every ten seconds. For Prometheus, use
// go.opentelemetry.io/otel/exporters/prometheus's exporter as the reader
// instead, and serve promhttp.Handler().
func Example() {
	ctx := context.Background()
	exporter, err := stdoutmetric.New()
	if err != nil {
		log.Fatal(err)
	}
	meters := sdkmetric.NewMeterProvider(sdkmetric.WithReader(
		sdkmetric.NewPeriodicReader(exporter, sdkmetric.WithInterval(10*time.Second))))
	defer meters.Shutdown(ctx) // writes what is left

	observer, err := otelzk.New(otelzk.WithMeterProvider(meters))
	if err != nil {
		log.Fatal(err)
	}
	client, err := framework.Connect(ctx, []string{"127.0.0.1:2181"}, framework.WithObserver(observer))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	lock, err := mutex.New(client, "/locks/billing")
	if err != nil {
		log.Fatal(err)
	}
	hold, err := lock.AcquireTimeout(ctx, 10*time.Second) // zkrecipes.lock.wait.duration
	if err != nil {
		log.Fatal(err)
	}
	defer hold.Release(ctx) // zkrecipes.lock.hold.duration, cause "released"
}
