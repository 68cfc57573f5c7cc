package node

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// TTLNode is a node kept alive by touching it, gone a TTL after the
// process stops touching it (Curator's PersistentTtlNode): a container
// node, kept as a Node keeps its node, with a child "touch" of mode
// PersistentTTL that the process writes every half TTL. Once the writes
// stop, the server deletes the child a TTL later, and then the empty
// container. The node survives the process's session, unlike an
// ephemeral one, and needs a server with extendedTypesEnabled. Make it
// with NewTTL.
type TTLNode struct {
	*Node
	ttl   time.Duration
	touch string
}

// touchName is the name of a TTLNode's child, as Curator names it.
const touchName = "touch"

// NewTTL returns a TTL node at path with data, alive while touched and
// for ttl after. It validates and does no I/O: Start creates it.
func NewTTL(client *framework.Client, path string, ttl time.Duration, data []byte, opts ...Option) (*TTLNode, error) {
	if ttl <= 0 {
		return nil, fmt.Errorf("node %s: %w: TTL %v", path, ErrInvalidArgument, ttl)
	}
	n, err := newNode(client, path, framework.Container, data, opts...)
	if err != nil {
		return nil, err
	}
	t := &TTLNode{Node: n, ttl: ttl, touch: zkpath.Join(path, touchName)}
	n.sidecar = t.touchUntilDone
	return t, nil
}

// touchUntilDone writes the touch child every half TTL until ctx ends,
// and at each create of the node.
func (t *TTLNode) touchUntilDone(ctx context.Context) {
	created := make(chan struct{}, 1)
	remove := t.AddListener(func(ev Event) {
		if ev.Type == Created {
			select {
			case created <- struct{}{}:
			default:
			}
		}
	})
	defer remove()
	tick := time.NewTicker(t.ttl / 2)
	defer tick.Stop()
	for {
		select {
		case <-created:
		case <-tick.C:
		case <-ctx.Done():
			return
		}
		if t.Node.Node() != "" {
			t.touchOnce(ctx)
		}
	}
}

// touchOnce writes the touch child, creating it if it is gone.
func (t *TTLNode) touchOnce(ctx context.Context) {
	_, err := t.client.Set(ctx, t.touch, nil, -1)
	if isNoNode(err) {
		_, err = t.client.Create(ctx, t.touch, nil, framework.PersistentTTL, framework.WithTTL(t.ttl))
		if errors.Is(err, zk.ErrNodeExists) {
			err = nil
		}
	}
	if err != nil && ctx.Err() == nil {
		t.log().Debug("node: touch failed; tried again in half a TTL", "path", t.path, "err", err)
	}
}
