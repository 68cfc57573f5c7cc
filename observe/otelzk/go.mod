module github.com/zkrecipes/zkrecipes/observe/otelzk

go 1.26.0

// The root module comes at the version this module is released with; the
// replace below builds it against this checkout's root, which may be
// ahead of that version. A replace directive binds only this module's own
// builds: a module that requires this one gets the root at the version
// required here.

require (
	github.com/go-zookeeper/zk v1.0.4
	github.com/stretchr/testify v1.12.1
	github.com/zkrecipes/zkrecipes v0.1.0
	go.opentelemetry.io/otel v1.47.0
	go.opentelemetry.io/otel/exporters/stdout/stdoutmetric v1.47.0
	go.opentelemetry.io/otel/metric v1.47.0
	go.opentelemetry.io/otel/sdk v1.47.0
	go.opentelemetry.io/otel/sdk/metric v1.47.0
	go.opentelemetry.io/otel/trace v1.47.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/petermattis/goid v0.0.0-20260820044319-269ab09b5261 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/otel/log v1.47.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

replace github.com/zkrecipes/zkrecipes => ../..
