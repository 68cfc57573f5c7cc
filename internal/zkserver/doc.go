// Package zkserver starts and stops local ZooKeeper server processes: one
// standalone server, or an ensemble of servers on loopback.
//
// It runs the ZooKeeper that is installed on the machine: Debian's
// zookeeper package (/usr/share/java/zookeeper.jar, whose manifest names its
// dependencies), or the jar named by the environment variable ZOOKEEPER_JAR
// or by [WithJar], with `java` from PATH. Every server listens on 127.0.0.1
// only, on a port picked free by the kernel, and keeps its configuration,
// data and log in one directory.
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
// The package has no test dependencies: both the tests (through
// internal/zktest) and the command-line tool use it.
package zkserver
