package recipe

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/framework"
)

// Fence is a hold's fencing token: its node's creation zxid, read from the
// server on first use and remembered, so that a hold nobody asks about
// costs no request. The zero Fence is ready to use.
type Fence struct {
	mu    sync.Mutex // guards token
	token int64
}

// Token returns the creation zxid of node. With bound, the read runs in the
// node's session (framework.BindSession), so a node of a session that is
// gone is reported lost instead of read in a new one; a TTL lease, which
// outlives its session, reads unbound. A node that no longer exists, or
// whose session is gone, is an error wrapping zkrecipes.ErrLost. Callers
// that ask at once may each read: the answer is the same, and none of them
// waits on another's call beyond its own ctx.
func (f *Fence) Token(ctx context.Context, client *framework.Client, node framework.Node, bound bool) (int64, error) {
	f.mu.Lock()
	token := f.token
	f.mu.Unlock()
	if token != 0 {
		return token, nil
	}
	if bound {
		ctx = framework.BindSession(ctx, node.Session)
	}
	ok, stat, err := client.Exists(ctx, node.Path)
	switch {
	case errors.Is(err, framework.ErrSessionChanged):
		return 0, Errorf("%w: %w", zkrecipes.ErrLost, err)
	case err != nil:
		return 0, err
	case !ok:
		return 0, fmt.Errorf("%w: %s was deleted", zkrecipes.ErrLost, node.Path)
	}
	f.mu.Lock()
	f.token = stat.Czxid
	f.mu.Unlock()
	return stat.Czxid, nil
}
