// Command zkr runs the zkrecipes recipes from the shell (locks, leases,
// leader election, barriers, counters, queues), shows who holds what, runs a local
// ZooKeeper for development, and shows the recipes at work in a demo.
//
//	zkr lock PATH -- COMMAND [ARGS]          hold a mutex while COMMAND runs
//	zkr lock PATH                            hold a mutex until SIGINT or SIGTERM
//	zkr semaphore PATH --leases N -- COMMAND hold one lease of N while COMMAND runs
//	zkr rwlock PATH --read|--write -- COMMAND hold a read or write lock while COMMAND runs
//	zkr elect PATH -- COMMAND [ARGS]         run COMMAND while leading an election
//	zkr inspect PATH                         show the holders and waiters of PATH
//	zkr watch PATH                           print the events of the subtree at PATH
//	zkr services [NAME]                      list the services registered under /services
//	zkr register NAME --address A --port P -- COMMAND
//	                                         register an instance of NAME while COMMAND runs
//	zkr barrier set|remove|wait PATH         set, remove or wait at a barrier
//	zkr barrier enter PATH --members N -- COMMAND
//	                                         run COMMAND between a double barrier's enter and leave
//	zkr counter get|add|set PATH [N]         read, add to or set a distributed counter
//	zkr queue put|take|ls PATH [ITEM...]     put into, take from or list a distributed queue
//	zkr revoke NODE                          ask a revocable holder to release
//	zkr get|stat|ls PATH                     read a node's data, its stat or its children
//	zkr set|create PATH [DATA]               write or create a node
//	zkr rm [--recursive] PATH                delete a node, or a subtree
//	zkr server [--port P] [--data DIR]       run a local ZooKeeper in the foreground
//	zkr demo                                 watch the recipes at work
//
// Every command that talks to ZooKeeper takes --servers (default
// $ZK_SERVERS, else 127.0.0.1:2181), --session-timeout, --connect-timeout,
// --namespace and --auth user:password. `zkr help` and `zkr COMMAND -h` list
// the flags (`zkr help` the exit statuses, `zkr --version` the build): 0 done (or COMMAND's own status), 1 other
// failure, 2 usage, 3 unreachable, 4 not acquired in time, 5 hold or term lost, 6
// revoked, 127 COMMAND not started, 128+N signal N (SIGINT 130, SIGTERM
// 143) while waiting. --exit-base N (or $ZKR_EXIT_BASE) shifts zkr's own
// failures 1 to 6 to N+1 to N+6, so that they are told from COMMAND's.
//
// zkr uses the library's public API only; its local server is the public
// package zktesting.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	e := &env{
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		getenv: os.Getenv, signals: signals,
		terminal: isTerminal(os.Stdout),
	}
	err := run(context.Background(), e, os.Args[1:])
	if err != nil && !isQuiet(err) {
		fmt.Fprintln(os.Stderr, "zkr:", oneLine(err))
	}
	os.Exit(exitCode(err))
}

// env is what a command reads and writes besides its arguments.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	signals        <-chan os.Signal // SIGINT, SIGTERM and SIGHUP to zkr
	terminal       bool             // stdout is a terminal
}

// command is one entry of zkr's command table.
type command struct {
	name     string
	synopsis string // what follows "zkr name" in the usage line
	summary  string
	help     string // more, for `zkr COMMAND -h`
	// connects says the command takes the common connection flags.
	connects bool
	// nargs is the number of arguments before "--"; child says the command
	// runs "-- COMMAND [ARGS]", holdOnly that it may also run none.
	nargs    int
	optArgs  int  // arguments after the nargs that may be left out
	moreArgs bool // any number of arguments may follow the nargs
	child    bool
	holdOnly bool
	// setup registers the command's own flags and returns its body.
	setup func(fs *flag.FlagSet, c *connFlags) runFunc
}

// runFunc is a command's body, given its arguments and COMMAND [ARGS].
type runFunc func(ctx context.Context, e *env, args, child []string) error

// commands is zkr's command table, in the order help lists it.
var commands = []command{
	{name: "lock", synopsis: "[flags] PATH [-- COMMAND [ARGS]]", summary: "hold the mutex at PATH while COMMAND runs, or until interrupted",
		connects: true, nargs: 1, child: true, holdOnly: true, setup: setupLock, help: lockHelp},
	{name: "semaphore", synopsis: "[flags] PATH --leases N -- COMMAND [ARGS]", summary: "hold one lease of the semaphore at PATH while COMMAND runs",
		connects: true, nargs: 1, child: true, setup: setupSemaphore, help: semaphoreHelp},
	{name: "rwlock", synopsis: "[flags] PATH --read|--write -- COMMAND [ARGS]", summary: "hold the read or the write lock at PATH while COMMAND runs",
		connects: true, nargs: 1, child: true, setup: setupRWLock, help: rwlockHelp},
	{name: "elect", synopsis: "[flags] PATH -- COMMAND [ARGS]", summary: "run COMMAND while leading the election at PATH (Curator's LeaderSelector)",
		connects: true, nargs: 1, child: true, setup: setupElect, help: electHelp},
	{name: "inspect", synopsis: "[flags] PATH", summary: "show the holders and waiters of the lock, semaphore or election at PATH (reads only)",
		connects: true, nargs: 1, setup: setupInspect, help: inspectHelp},
	{name: "watch", synopsis: "[flags] PATH", summary: "print the events of the subtree at PATH as they happen, until interrupted (Curator's CuratorCache)",
		connects: true, nargs: 1, setup: setupWatch, help: watchHelp},
	{name: "services", synopsis: "[flags] [NAME]", summary: "list the services registered under --base, or the instances of NAME (curator-x-discovery; reads only)",
		connects: true, optArgs: 1, setup: setupServices, help: servicesHelp},
	{name: "register", synopsis: "[flags] NAME --address A --port P [-- COMMAND [ARGS]]", summary: "register an instance of service NAME while COMMAND runs, or until interrupted (curator-x-discovery)",
		connects: true, nargs: 1, child: true, holdOnly: true, setup: setupRegister, help: registerHelp},
	{name: "barrier", synopsis: "[flags] set|remove|wait|enter PATH [--members N -- COMMAND [ARGS]]", summary: "set, remove or wait at the barrier at PATH, or enter the double barrier there while COMMAND runs (Curator's DistributedBarrier, DistributedDoubleBarrier)",
		connects: true, nargs: 2, child: true, holdOnly: true, setup: setupBarrier, help: barrierHelp},
	{name: "counter", synopsis: "[flags] get|add|set PATH [N]", summary: "read, add N to or set the counter at PATH (Curator's DistributedAtomicLong; --int: DistributedAtomicInteger)",
		connects: true, nargs: 2, optArgs: 1, setup: setupCounter, help: counterHelp},
	{name: "queue", synopsis: "[flags] put|take|ls PATH [ITEM...]", summary: "put ITEMs into the queue at PATH, take one node's items, or list them (Curator's DistributedQueue and its kinds, SimpleDistributedQueue)",
		connects: true, nargs: 2, moreArgs: true, setup: setupQueue, help: queueHelp},
	{name: "revoke", synopsis: "[flags] NODE", summary: "ask the holder of lock node NODE to release it (Curator's revocation)",
		connects: true, nargs: 1, setup: setupRevoke, help: revokeHelp},
	{name: "get", synopsis: "[flags] PATH", summary: "print the data of the node at PATH (zkCli.sh's get)",
		connects: true, nargs: 1, setup: setupGet, help: getHelp},
	{name: "set", synopsis: "[flags] PATH [DATA]", summary: "write DATA, or stdin, into the node at PATH (--version: only at that version)",
		connects: true, nargs: 1, optArgs: 1, setup: setupSet, help: setHelp},
	{name: "create", synopsis: "[flags] PATH [DATA]", summary: "create the node at PATH (--sequential, --container, --ttl D; --parents) and print its path",
		connects: true, nargs: 1, optArgs: 1, setup: setupCreate, help: createHelp},
	{name: "ls", synopsis: "[flags] [-R] PATH", summary: "list the children of the node at PATH (-R: PATH and every node below it)",
		connects: true, nargs: 1, setup: setupLs, help: lsHelp},
	{name: "stat", synopsis: "[flags] PATH", summary: "print the stat of the node at PATH (versions, zxids, times, owner session)",
		connects: true, nargs: 1, setup: setupStat, help: statHelp},
	{name: "rm", synopsis: "[flags] [--recursive] PATH", summary: "delete the node at PATH (--recursive: and every node below it; never / or /zookeeper)",
		connects: true, nargs: 1, setup: setupRm, help: rmHelp},
	{name: "server", synopsis: "[--port P] [--data DIR]", summary: "run a local ZooKeeper for development until interrupted",
		setup: setupServer, help: serverHelp},
	{name: "demo", synopsis: "[flags]", summary: "workers contend for a mutex and a semaphore on a local ZooKeeper; one session is killed midway",
		setup: setupDemo, help: demoHelp},
}

// run parses the command line and runs the command; its error carries
// the exit base (--exit-base, $ZKR_EXIT_BASE) for exitCode.
func run(ctx context.Context, e *env, args []string) error {
	var base exitBase
	if v := e.getenv(exitBaseEnv); v != "" {
		if err := base.Set(v); err != nil {
			return usagef("%s %v", exitBaseEnv, err)
		}
	}
	err := dispatch(ctx, e, args, &base)
	if err != nil && base > 0 {
		return based{err: err, base: int(base)}
	}
	return err
}

// dispatch runs the command args name; --exit-base sets base.
func dispatch(ctx context.Context, e *env, args []string, base *exitBase) error {
	if len(args) == 0 {
		usage(e.stderr)
		return usagef("no command")
	}
	switch args[0] {
	case "--version", "-version", "version":
		fmt.Fprintln(e.stdout, buildVersion())
		return nil
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if c := lookup(args[1]); c != nil {
				fs, _ := c.flags(new(exitBase))
				commandUsage(e.stdout, c, fs)
				return nil
			}
			return usagef("unknown command %q (see zkr help)", args[1])
		}
		usage(e.stdout)
		return nil
	}
	c := lookup(args[0])
	if c == nil {
		return usagef("unknown command %q (see zkr help)", args[0])
	}
	fs, body := c.flags(base)
	pos, at, child, err := parseArgsAt(fs, args[1:])
	if c.child && child == nil && len(pos) > c.nargs {
		// "zkr lock /x true": the COMMAND is there, the "--" is not (its
		// own flags, "sh -c", may have failed the parse).
		return usagef("%s: put -- before COMMAND: zkr %s %s -- %s", c.name, c.name,
			strings.Join(pos[:c.nargs], " "), strings.Join(args[1+at[c.nargs]:], " "))
	}
	if errors.Is(err, flag.ErrHelp) {
		commandUsage(e.stdout, c, fs)
		return nil
	}
	if err != nil {
		return usagef("%s: %v (see zkr %s -h)", c.name, err, c.name)
	}
	if err := c.checkArgs(pos, child); err != nil {
		return err
	}
	return body(ctx, e, pos, child)
}

// checkArgs checks the arguments before "--" and the COMMAND after it.
func (c *command) checkArgs(pos, child []string) error {
	if c.optArgs > 0 && (len(pos) < c.nargs || len(pos) > c.nargs+c.optArgs) {
		return usagef("%s takes %d to %d argument(s), got %d: zkr %s %s", c.name, c.nargs, c.nargs+c.optArgs, len(pos), c.name, c.synopsis)
	}
	if c.moreArgs && len(pos) < c.nargs {
		return usagef("%s takes at least %d argument(s), got %d: zkr %s %s", c.name, c.nargs, len(pos), c.name, c.synopsis)
	}
	if c.optArgs == 0 && !c.moreArgs && len(pos) != c.nargs {
		return usagef("%s takes %d argument(s), got %d: zkr %s %s", c.name, c.nargs, len(pos), c.name, c.synopsis)
	}
	if c.child && len(child) == 0 && !(c.holdOnly && child == nil) {
		return usagef("%s needs -- COMMAND [ARGS]: zkr %s %s", c.name, c.name, c.synopsis)
	}
	if !c.child && child != nil {
		return usagef("%s runs no COMMAND: zkr %s %s", c.name, c.name, c.synopsis)
	}
	return nil
}

// lookup returns the command named name, or nil.
func lookup(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// flags returns the command's flag set and body; --exit-base sets base.
func (c *command) flags(base *exitBase) (*flag.FlagSet, runFunc) {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	base.register(fs)
	var conn *connFlags
	if c.connects {
		conn = registerConnFlags(fs)
	}
	return fs, c.setup(fs, conn)
}

// parseArgs parses flags anywhere among the arguments up to "--", and
// returns the other arguments and what follows "--" (nil if no "--").
func parseArgs(fs *flag.FlagSet, args []string) (pos, child []string, err error) {
	pos, _, child, err = parseArgsAt(fs, args)
	if err != nil {
		return nil, nil, err
	}
	return pos, child, nil
}

// parseArgsAt is parseArgs that also says where in args each of pos was,
// and on error returns the arguments found until then. A negative number
// ("zkr counter add /n -3") is an argument, not a flag.
func parseArgsAt(fs *flag.FlagSet, args []string) (pos []string, at []int, child []string, err error) {
	offset := 0
	for {
		n := leadingFlags(fs, args)
		if err := fs.Parse(args[:n]); err != nil {
			return pos, at, nil, err
		}
		rest := fs.Args()
		if n < len(args) {
			rest = args[n:] // flags up to a negative number, which comes next
		}
		used := len(args) - len(rest)
		if used > 0 && args[used-1] == "--" {
			return pos, at, append([]string{}, rest...), nil
		}
		if len(rest) == 0 {
			return pos, at, nil, nil
		}
		pos, at = append(pos, rest[0]), append(at, offset+used)
		args, offset = rest[1:], offset+used+1
	}
}

// leadingFlags returns how many of args fs may parse as flags: all of
// them, but for a negative number among the flags they begin with, which
// is an argument, unless it is the value of the flag before it.
func leadingFlags(fs *flag.FlagSet, args []string) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" || a == "-" || !strings.HasPrefix(a, "-"):
			return len(args) // fs.Parse stops there itself
		case isNegativeNumber(a):
			return i
		case strings.Contains(a, "="):
			continue
		}
		f := fs.Lookup(strings.TrimLeft(a, "-"))
		if f == nil {
			continue // fs.Parse fails on it
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
			i++ // its value
		}
	}
	return len(args)
}

// isNegativeNumber tells whether s is a minus sign and decimal digits.
func isNegativeNumber(s string) bool {
	if len(s) < 2 || s[0] != '-' {
		return false
	}
	for _, r := range s[1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// oneLine returns err's message on one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", " ")), " ")
}

// isQuiet tells whether err needs no message: COMMAND's own status.
func isQuiet(err error) bool {
	var status exitStatus
	return errors.As(err, &status)
}

// isTerminal tells whether f is a terminal (a character device).
func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
