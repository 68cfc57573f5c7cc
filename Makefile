# Targets of zkrecipes. Tests need a ZooKeeper server: `make deps` installs
# Debian's (as root), and the tests start their own on free loopback ports.
# See internal/zktest for ZK_SERVERS, and zktesting/zkcontainer for the
# container backend's ZK_BACKEND=container and ZK_IMAGE. `make demo` needs
# only ZooKeeper.

SHELL := /bin/bash
GO ?= go
GOBIN := $(shell $(GO) env GOBIN)
GOBIN := $(if $(GOBIN),$(GOBIN),$(shell $(GO) env GOPATH)/bin)
export PATH := $(PATH):$(GOBIN)

# The container backend's Docker daemon state and the image it runs.
DOCKER_DIR ?= $(CURDIR)/.run/docker
ZK_IMAGE ?= zkrecipes/zookeeper:3.8
# Test name pattern for test-integration.
RUN ?= .
# Length of the chaos run (make chaos DURATION=30m); make test runs the default 2m.
DURATION ?= 2m
# Where the chaos run writes its JSON report.
CHAOS_REPORT ?= $(CURDIR)/.run/chaos-report.json
export CHAOS_REPORT

# The project's own builds, tests and lint run in a Go workspace that
# replaces go-zookeeper 1.0.4 by a copy with its lastZxid data race fixed
# (.ci/go-zookeeper-lastzxid.patch), so that -race reports only races that
# matter. go.mod itself has no replace directive: users build as they
# always do.
GOWORK_FILE := $(CURDIR)/.run/gowork/go.work
export GOWORK := $(GOWORK_FILE)

# The nested modules, each a module of its own so that the root module's
# graph stays free of what they need (.ci/gowork.sh puts the same in the
# workspace). `go test ./...` does not descend into a nested module, so
# every target names their packages too: PKGS.
ROOT_MODULE := github.com/zkrecipes/zkrecipes
SUBMODULES := zktesting/zkcontainer observe/otelzk
PKGS := ./... $(foreach m,$(SUBMODULES),./$(m)/...)
comma := ,
empty :=
space := $(empty) $(empty)

.PHONY: deps gowork build test test-unit test-integration test-container lint tidy cover bench demo chaos

$(GOWORK_FILE): go.mod go.sum $(foreach m,$(SUBMODULES),$(m)/go.mod) .ci/gowork.sh .ci/go-zookeeper-lastzxid.patch
	./.ci/gowork.sh

## gowork: make the workspace; then export GOWORK=$PWD/.run/gowork/go.work to run go by hand as make does
gowork: $(GOWORK_FILE)

## deps: install what the tests and lint need (idempotent; root for apt)
deps: $(GOWORK_FILE)
	./.ci/deps.sh

## build: compile everything
build: $(GOWORK_FILE)
	$(GO) build $(PKGS)

## test: every test, with the race detector, against local servers (the chaos run for 2m)
test: deps $(GOWORK_FILE)
	$(GO) test -race -count=1 -timeout 20m $(PKGS)

## chaos: the chaos run alone, for DURATION (make chaos DURATION=30m); report in CHAOS_REPORT;
## fails on a broken promise, and from 2m on when no fault interrupted a hold, dropped an answer or expired a holder
chaos: deps $(GOWORK_FILE)
	CHAOS_DURATION=$(DURATION) $(GO) test -race -count=1 -timeout 24h -v -run '^TestChaos_NothingHeldTwice' ./reliability/

## test-unit: tests that need no server (integration tests skip under -short)
test-unit: $(GOWORK_FILE)
	$(GO) test -race -short -run '^(Test|Fuzz)' $(PKGS)

## test-integration: like test, for the tests matching RUN (make test-integration RUN=TestProxy)
test-integration: deps $(GOWORK_FILE)
	$(GO) test -race -count=1 -timeout 20m -run '$(RUN)' $(PKGS)

## test-container: the testcontainers backend (the module zktesting/zkcontainer), on a private Docker daemon and a locally built image
test-container: deps $(GOWORK_FILE)
	./.ci/deps.sh container
	export DOCKER_HOST=unix://$(DOCKER_DIR)/docker.sock; \
	trap './.ci/dockerd.sh stop $(DOCKER_DIR)' EXIT; \
	./.ci/dockerd.sh start $(DOCKER_DIR) && \
	./.ci/zk-image.sh $(ZK_IMAGE) && \
	ZK_BACKEND=container ZK_IMAGE=$(ZK_IMAGE) \
		$(GO) test -race -count=1 -timeout 20m ./zktesting/zkcontainer/...

## lint: go vet, staticcheck, gofmt
lint: deps $(GOWORK_FILE)
	$(GO) vet $(PKGS)
	staticcheck $(PKGS)
	@unformatted=$$(find . \( -name .git -o -name .run -o -name testdata \) -prune -o -name '*.go' -print | xargs gofmt -l); \
	if [[ -n $$unformatted ]]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi

## tidy: go mod tidy in the root module and in each nested one (against this checkout's root)
tidy:
	GOWORK=off $(GO) mod tidy
	set -e; for m in $(SUBMODULES); do \
		( cd $$m && $(GO) mod edit -replace=$(ROOT_MODULE)=$$(realpath --relative-to=. $(CURDIR)) && \
		  trap '$(GO) mod edit -dropreplace=$(ROOT_MODULE)' EXIT && GOWORK=off $(GO) mod tidy ); \
	done

## cover: every test with coverage of every package; profile in cover.out
cover: deps $(GOWORK_FILE)
	$(GO) test -race -count=1 -timeout 20m -coverpkg=$(subst $(space),$(comma),$(PKGS)) -coverprofile=cover.out $(PKGS)
	$(GO) tool cover -func=cover.out | tail -1

## bench: benchmarks only
bench: deps $(GOWORK_FILE)
	$(GO) test -run='^$$' -bench=. -benchmem $(PKGS)

## demo: the recipes at work on a local ZooKeeper (zkr demo); needs only ZooKeeper
demo: $(GOWORK_FILE)
	./.ci/deps.sh zookeeper
	$(GO) run ./cmd/zkr demo
