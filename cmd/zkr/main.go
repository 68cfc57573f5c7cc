// Command zkr shows the zkrecipes recipes at work.
//
//	zkr demo [-servers host:port,...] [-workers N] [-rounds N] [-leases N]
//
// demo starts a local ZooKeeper server (the installed Debian package)
// unless -servers names one, then lets workers, each with its own session,
// take a mutex in turn and share a semaphore, and reports what each recipe
// guaranteed: one holder at a time with growing fencing tokens, never more
// than the semaphore's leases, and no node left behind.
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
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "zkr:", err)
		os.Exit(1)
	}
}

// errUsage is returned for a command line zkr does not understand.
var errUsage = errors.New("usage: zkr demo [-servers host:port,...] [-workers N] [-rounds N] [-leases N]")

// run parses the command line and runs the command, writing to out.
func run(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 || args[0] != "demo" {
		return errUsage
	}
	flags := flag.NewFlagSet("demo", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	servers := flags.String("servers", "", "ZooKeeper connect string; default: start a local server")
	cfg := demoConfig{}
	flags.IntVar(&cfg.workers, "workers", 4, "workers, each its own session")
	flags.IntVar(&cfg.rounds, "rounds", 5, "mutex and semaphore rounds per worker")
	flags.IntVar(&cfg.leases, "leases", 2, "the semaphore's leases")
	if err := flags.Parse(args[1:]); err != nil || flags.NArg() > 0 {
		return errUsage
	}
	if cfg.workers < 1 || cfg.rounds < 1 || cfg.leases < 1 {
		return fmt.Errorf("%w: workers, rounds and leases must be at least 1", errUsage)
	}
	if *servers != "" {
		cfg.servers = strings.Split(*servers, ",")
	}
	return demo(ctx, cfg, out)
}
