// Package zktesting runs local ZooKeeper servers for tests and development,
// as Curator's TestingServer and TestingCluster do for Java: one standalone
// server, or an ensemble on loopback, from the ZooKeeper installed on the
// machine.
//
// In a test, NewServer and NewEnsemble start one for the test alone and stop
// it, removing every file, when the test ends:
//
//	func TestBilling(t *testing.T) {
//		server := zktesting.NewServer(t) // or zktesting.NewEnsemble(t, 3)
//		client, err := framework.Connect(t.Context(), []string{server.Addr()})
//		if err != nil {
//			t.Fatal(err)
//		}
//		defer client.Close()
//		...
//		err = server.Restart(t.Context()) // same port, same data; live sessions survive
//	}
//
// The package's examples run as written.
//
// Outside tests (a command's own server, a demo), Start and StartEnsemble
// return the same types and leave the stopping to the caller's Close.
//
// It runs the ZooKeeper that is installed on the machine: Debian's
// zookeeper package (/usr/share/java/zookeeper.jar, whose manifest names its
// dependencies), or the jar named by the environment variable ZOOKEEPER_JAR
// or by [WithJar], with `java` from PATH. Every server listens on 127.0.0.1
// only, on a port picked free by the kernel, and keeps its configuration,
// data and log in one directory. A port that another process takes before
// the server binds it is picked again. When a test fails, NewServer and
// NewEnsemble log the tail of each server's log before it is removed; an
// ensemble member's log says when it looks for a leader, follows or leads.
//
// The configuration suits tests of coordination recipes: a short tick (200 ms
// by default) so that sessions may be as short as two ticks, four-letter
// words all allowed, TTL nodes enabled, containers reaped every second, no
// fsync, and no admin server.
//
// Servers are plain child processes, stopped by their PID. On Linux a server
// is also killed when the process that started it dies, so that a crashed
// test binary leaves no server behind.
//
// Faults cuts or partitions the connections of one client, so that a test can
// make its session expire (ExpireSession) while the server keeps running.
//
// An ensemble started WithPeerFaults has its members reach each other
// through proxies, so that Ensemble.Isolate can cut one member off from the
// others, silently as a network partition does, while its clients still
// reach it: a follower then goes on answering them for about
// syncLimit × tickTime (WithSyncLimit; Ensemble.ServerLag gives the lag a
// client of a follower must allow for) before it drops them, while the
// others expire their sessions. Rejoin ends the partition.
//
// An ensemble started WithReconfig can be reconfigured, as operators move
// an ensemble to new machines with ZooKeeper 3.5+: AddMembers starts new
// servers and adds them by an incremental reconfig, RemoveMembers takes
// members out of the configuration (StopMember then stops them), and
// /zookeeper/config names every member's client address, which a client
// that follows the ensemble reads.
//
// The package pulls in no container runtime, nor package testing (NewServer
// and NewEnsemble take a [TB], which every testing.TB is): importing it
// costs a command nothing beyond go-zookeeper. On a machine with Docker and no ZooKeeper,
// zkcontainer runs the server in a container through testcontainers-go
// instead (New, Start, Stop, Restart). It is a module of its own,
// github.com/zkrecipes/zkrecipes/zktesting/zkcontainer, so that container
// tooling enters only the module graph of a program that asks for it.
package zktesting
