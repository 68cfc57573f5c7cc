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
# Packages of the root module that make test runs at a time, and parallel
# tests of a package (see .ci/test.sh).
TEST_P ?= 6
TEST_PARALLEL ?= 4
# Where the chaos run writes its JSON report.
CHAOS_REPORT ?= $(CURDIR)/.run/chaos-report.json
export CHAOS_REPORT

# Every build and test runs as a user's would: without a workspace, on
# go-zookeeper as the module proxy serves it.
export GOWORK := off

# The nested modules, each a module of its own so that the root module's
# graph stays free of what they need; each go.mod replaces the root by
# this checkout. `go test ./...` does not descend into a nested module, so
# every target runs in the root and then in each of them: $(call each,CMD).
ROOT_MODULE := github.com/zkrecipes/zkrecipes
SUBMODULES := zktesting/zkcontainer observe/otelzk
each = set -e; $(1) ./...; for m in $(SUBMODULES); do ( cd $$m && $(1) ./... ); done

.PHONY: deps build test test-unit test-integration test-container lint tidy cover bench demo chaos

## deps: install what the tests and lint need (idempotent; root for apt)
deps:
	./.ci/deps.sh

## build: compile everything
build:
	$(call each,$(GO) build)

## test: every test, with the race detector, against local servers (the chaos run for 2m,
## beside the rest); TEST_P packages at a time; ends with each package's time, slowest first
test: deps
	GO=$(GO) TEST_P=$(TEST_P) TEST_PARALLEL=$(TEST_PARALLEL) ./.ci/test.sh

## chaos: the chaos run alone, for DURATION (make chaos DURATION=30m); report in CHAOS_REPORT;
## fails on a broken promise, and from 2m on when no fault interrupted a hold, dropped an answer or expired a holder;
## TLS=1 runs the clients over the members' TLS ports, without the lost-answer faults (the proxy cannot see packets)
chaos: deps
	CHAOS_DURATION=$(DURATION) CHAOS_TLS=$(TLS) $(GO) test -race -count=1 -timeout 24h -v -run '^TestChaos_NothingHeldTwice' ./reliability/

## test-unit: tests that need no server (integration tests skip under -short)
test-unit:
	$(call each,$(GO) test -race -short -run '^(Test|Fuzz)')

## test-integration: like test, for the tests matching RUN (make test-integration RUN=TestProxy)
test-integration: deps
	$(call each,$(GO) test -race -count=1 -timeout 20m -run '$(RUN)')

## test-container: the testcontainers backend (the module zktesting/zkcontainer), on a private Docker daemon and a locally built image
test-container: deps
	./.ci/deps.sh container
	export DOCKER_HOST=unix://$(DOCKER_DIR)/docker.sock; \
	trap './.ci/dockerd.sh stop $(DOCKER_DIR)' EXIT; \
	./.ci/dockerd.sh start $(DOCKER_DIR) && \
	./.ci/zk-image.sh $(ZK_IMAGE) && \
	ZK_BACKEND=container ZK_IMAGE=$(ZK_IMAGE) \
		bash -c 'cd zktesting/zkcontainer && $(GO) test -race -count=1 -timeout 20m ./...'

## lint: go vet, staticcheck, gofmt
lint: deps
	$(call each,$(GO) vet)
	$(call each,staticcheck)
	@unformatted=$$(find . \( -name .git -o -name .run -o -name testdata \) -prune -o -name '*.go' -print | xargs gofmt -l); \
	if [[ -n $$unformatted ]]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi

## tidy: go mod tidy in the root module and in each nested one (against this checkout's root)
tidy:
	$(GO) mod tidy
	set -e; for m in $(SUBMODULES); do ( cd $$m && $(GO) mod tidy ); done

## cover: every test with coverage of every package; profile in cover.out
cover: deps
	$(GO) test -race -count=1 -timeout 20m -coverpkg=./... -coverprofile=cover.out ./...
	$(GO) tool cover -func=cover.out | tail -1

## bench: benchmarks only
bench: deps
	$(call each,$(GO) test -run='^$$' -bench=. -benchmem)

## demo: the recipes at work on a local ZooKeeper (zkr demo); needs only ZooKeeper
demo:
	./.ci/deps.sh zookeeper
	$(GO) run ./cmd/zkr demo
