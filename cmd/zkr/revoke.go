package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// setupRevoke is `zkr revoke NODE`. It writes only into lock nodes, so that
// a wrong path cannot overwrite a count or a lock directory.
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
		if name := args[0][strings.LastIndex(args[0], "/")+1:]; !anyContains([]string{name}, lockMarker, readMarker, writeMarker) {
			return usagef("revoke: %s is not a lock node (its name has no lock-, __READ__ or __WRIT__); see zkr inspect", args[0])
		}
		ctx, stop := cancelOnSignal(ctx, e)
		defer stop()
		if err := conn.waitConnected(ctx, e, client, -1); err != nil {
			return interrupted(ctx, err)
		}
		ok, _, err := client.Exists(ctx, args[0])
		if err != nil {
			return interrupted(ctx, err)
		}
		if !ok {
			fmt.Fprintf(e.stdout, "nothing to revoke: %s is gone\n", args[0])
			return nil
		}
		if err := mutex.Revoke(ctx, client, args[0]); err != nil {
			return interrupted(ctx, err)
		}
		fmt.Fprintf(e.stdout, "revocation requested: %s\n", args[0])
		return nil
	}
}
