// Package zktest is the test support of zkrecipes: a ZooKeeper server for
// each test binary, private servers and ensembles for tests that stop them,
// unique paths, a fault-injecting proxy (Proxy), and a Curator 5.x peer
// process for interop tests (StartCurator). Only tests import it.
//
// A test binary that uses the shared server has
//
//	func TestMain(m *testing.M) { zktest.Main(m) }
//
// and its tests call Servers(t) for the connect string. The shared server
// comes, in this order, from:
//
//   - ZK_SERVERS, a connect string of servers already running;
//   - otherwise: a local server process of the installed ZooKeeper, through
//     the public package zktesting.
//
// It imports no container runtime, so the core module's tests need no
// container module: the testcontainers backend, zktesting/zkcontainer, is a
// module of its own with its own tests (make test-container). ZK_BACKEND,
// if set, must be "local".
//
// A test that needs a server fails, never skips, when none can run: CI
// installs everything. Under `go test -short` every test that needs a server
// is skipped (see Integration).
package zktest
