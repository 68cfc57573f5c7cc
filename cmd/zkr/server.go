package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"

	"github.com/zkrecipes/zkrecipes/zktesting"
)

// serverHelp is the longer help of `zkr server`.
const serverHelp = `Runs a standalone ZooKeeper from the installed one (Debian's zookeeper
package, or the jar in $ZOOKEEPER_JAR, with java from PATH) on 127.0.0.1,
prints its connect string on stdout, and stops it on SIGINT or SIGTERM,
removing its files unless --data names a directory to keep. Settings suit
development: a 200 ms tick, so sessions may be as short as 400 ms; no fsync.
It is the server of the Go package zktesting, which tests can start too.

On ZooKeeper's own port, every other zkr command finds it without flags:

  zkr server --port 2181 &
  zkr lock /locks/report -- ./report.sh`

// setupServer is `zkr server [--port P] [--data DIR]`.
func setupServer(fs *flag.FlagSet, _ *connFlags) runFunc {
	port := fs.Int("port", 0, "listen on 127.0.0.1:`P` (default: a free port)")
	dir := fs.String("data", "", "keep configuration, data and log in `DIR` and leave it there (default: a temporary directory, removed)")
	return func(ctx context.Context, e *env, _, _ []string) error {
		if *port < 0 || *port > 65535 {
			return usagef("--port must be in 0..65535")
		}
		ctx, stop := cancelOnSignal(ctx, e)
		defer stop()
		opts := []zktesting.Option{zktesting.WithPort(*port),
			zktesting.WithLogger(slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))}
		if *dir != "" {
			opts = append(opts, zktesting.WithDir(*dir))
		}
		server, err := zktesting.Start(ctx, opts...)
		if err != nil {
			return interrupted(ctx, fmt.Errorf("start ZooKeeper: %w", err))
		}
		fmt.Fprintln(e.stdout, server.Addr())
		fmt.Fprintf(e.stderr, "zkr: ZooKeeper serves on %s (pid %d, files in %s); Ctrl-C stops it\n", server.Addr(), server.PID(), server.Dir())
		<-ctx.Done()
		if err := server.Close(); err != nil {
			return err
		}
		fmt.Fprintln(e.stderr, "zkr: ZooKeeper stopped")
		return nil
	}
}
