package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// revokeHelp is the longer help of `zkr revoke`.
const revokeHelp = `Writes Curator's revocation request (__REVOKE__) into the lock node NODE,
as Curator's Revoker does. A holder that made its lock revocable (zkr lock
--revocable, mutex.WithRevocation, Curator's makeRevocable) releases it;
others ignore the request. A revocable holder's node starts empty: a node
that holds data belongs to a holder that is not revocable, and zkr revoke
leaves it alone (status 1) unless --force. zkr inspect lists the nodes.`

// setupRevoke is `zkr revoke NODE`. It writes only into lock nodes, so that
// a wrong path cannot overwrite a count or a lock directory, and only into
// empty ones unless --force: a revocable holder's node starts empty, and
// the data of any other is its holder's, which the request would destroy
// for nothing.
func setupRevoke(fs *flag.FlagSet, conn *connFlags) runFunc {
	force := fs.Bool("force", false, "write the request into a node that holds data (its holder is not revocable; the data is lost)")
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
		return interrupted(ctx, revoke(ctx, e, client, args[0], *force))
	}
}

// revoke writes the revocation request into node, if it is there and
// empty (or force).
func revoke(ctx context.Context, e *env, client *framework.Client, node string, force bool) error {
	data, _, err := client.Get(ctx, node)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		fmt.Fprintf(e.stdout, "nothing to revoke: %s is gone\n", node)
		return nil
	case err != nil:
		return err
	case string(data) == revokeMessage:
		fmt.Fprintf(e.stdout, "revocation already requested: %s\n", node)
		return nil
	case len(data) > 0 && !force:
		return fmt.Errorf("revoke: %s holds %d bytes of data (%q): %w; nothing changed "+
			"(--force writes the request anyway, losing the data)", node, len(data), preview(data), errNotRevocable)
	}
	if err := mutex.Revoke(ctx, client, node); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "revocation requested: %s\n", node)
	return nil
}

// revokeMessage is Curator's revocation request.
const revokeMessage = "__REVOKE__"

// errNotRevocable is a node whose holder cannot be asked to release.
var errNotRevocable = errors.New("its holder is not revocable")

// preview returns the start of data, for a message.
func preview(data []byte) string {
	const most = 40
	if len(data) > most {
		return string(data[:most]) + "..."
	}
	return string(data)
}
