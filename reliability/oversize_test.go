package reliability_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// serverMaxPacket is ZooKeeper's default jute.maxbuffer: the largest
// packet a server reads from a client, 1 MB less one byte.
const serverMaxPacket = 0xfffff

// Node data or a path past the server's 1 MB limit is refused at once with
// ErrInvalidArgument; nothing is created, and the client's connection, on
// which other holds depend, is not cut.
func TestBadInput_OversizedDataFailsFastWithoutANode(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	ctx := zktest.Context(t)
	root := zktest.UniquePath(t)
	bystander, err := mutex.New(c, root+"/bystander")
	require.NoError(t, err)
	held, err := bystander.Acquire(ctx)
	require.NoError(t, err)
	before := tree(t, c, "/")

	big := make([]byte, serverMaxPacket+1)
	for _, tc := range []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"mutex data", func(ctx context.Context) error {
			m, err := mutex.New(c, root+"/m", mutex.WithData(big))
			if err != nil {
				return err
			}
			_, err = m.Acquire(ctx)
			return err
		}},
		{"semaphore data", func(ctx context.Context) error {
			s, err := semaphore.New(c, root+"/s", 1, semaphore.WithData(big))
			if err != nil {
				return err
			}
			_, err = s.Acquire(ctx)
			return err
		}},
		{"path", func(ctx context.Context) error {
			m, err := mutex.New(c, "/"+strings.Repeat("p", serverMaxPacket+1))
			if err != nil {
				return err
			}
			_, err = m.Acquire(ctx)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			err := tc.call(cctx)
			require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
			assert.Less(t, len(err.Error()), 1000, "the error does not quote a megabyte")
		})
	}
	assert.NoError(t, held.Err(), "the client's other hold survived")
	assert.Subset(t, before, tree(t, c, "/"), "no node was created (empty containers may be reaped meanwhile)")
	assert.NoError(t, held.Release(ctx))
}
