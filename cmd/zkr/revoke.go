package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// setupRevoke is `zkr revoke NODE`.
func setupRevoke(fs *flag.FlagSet, conn *connFlags) runFunc {
	return func(ctx context.Context, e *env, args, _ []string) error {
		client, err := conn.newClient(e)
		if err != nil {
			return err
		}
		defer client.Close()
		if _, err := client.ServerPath(args[0]); err != nil {
			return err
		}
		ctx, stop := cancelOnSignal(ctx, e)
		defer stop()
		if err := conn.waitConnected(ctx, e, client); err != nil {
			return interrupted(ctx, err)
		}
		if err := mutex.Revoke(ctx, client, args[0]); err != nil {
			return interrupted(ctx, err)
		}
		fmt.Fprintf(e.stdout, "revocation requested: %s\n", args[0])
		return nil
	}
}
