package reliability_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// reapCase is one operation of a recipe that writes under a container
// directory. handle makes a new handle of the recipe on path and returns
// one use of it: the operation, then whatever brings the recipe back to
// idle (release, close, take the items), so that the server may reap its
// directories afterwards.
type reapCase struct {
	name   string
	handle func(t *testing.T, c *framework.Client, path string) func(ctx context.Context) error
}

// A recipe used once, left idle until the server has reaped its container
// directories, works again without the user doing anything: from the same
// handle and from a new one on the same path, and it leaves nothing behind
// (the directories are reaped once more, which a node left in them would
// prevent). The cases go through each phase together, so that the test
// waits for three reaps, not three per case.
func TestReaped_EveryRecipeWorksAgainAfterItsDirectoriesAreReaped(t *testing.T) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	c := zktest.Connect(t, proxy.Addr())
	observer := zktest.Connect(t, servers)
	ctx := zktest.Context(t)
	var cases []reapCase
	cases = append(cases, lockReapCases()...)
	cases = append(cases, leaderReapCases()...)
	cases = append(cases, cacheAndNodeReapCases()...)
	cases = append(cases, discoveryReapCases()...)
	cases = append(cases, valueReapCases()...)
	cases = append(cases, barrierAndQueueReapCases()...)
	roots := make([]string, len(cases))
	uses := make([]func(context.Context) error, len(cases))
	for i, tc := range cases {
		t.Run(tc.name+"/first use", func(t *testing.T) {
			roots[i] = zktest.UniquePath(t)
			use := tc.handle(t, c, roots[i]+"/a/recipe")
			require.NoError(t, use(ctx))
			uses[i] = use
		})
	}
	phase := func(name string, use func(t *testing.T, i int) error) {
		for i, tc := range cases {
			if uses[i] == nil {
				continue // its first use failed
			}
			awaitReaped(t, observer, roots[i])
			t.Run(tc.name+"/"+name, func(t *testing.T) { assert.NoError(t, use(t, i)) })
		}
	}
	ended, cancel := context.WithCancel(ctx)
	cancel()
	phase("ended ctx after the reap sends nothing", func(t *testing.T, i int) error {
		before := writesAndReads(proxy)
		err := uses[i](ended)
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, before, writesAndReads(proxy), "requests sent")
		return nil
	})
	phase("same handle after the reap", func(_ *testing.T, i int) error { return uses[i](ctx) })
	phase("new handle after the reap", func(t *testing.T, i int) error {
		return cases[i].handle(t, c, roots[i]+"/a/recipe")(ctx)
	})
	for i := range cases {
		if uses[i] != nil {
			awaitReaped(t, observer, roots[i])
		}
	}
}

// writesAndReads counts the requests clients sent through proxy that
// write or read nodes: not pings, nor the removal of a watch that a
// closed recipe's watch lingering a second sends by itself.
func writesAndReads(proxy *zktest.Proxy) int64 {
	var n int64
	for op, sent := range proxy.RequestsSent() {
		if op != zktest.OpRemoveWatches && op != zktest.OpCloseSession {
			n += sent
		}
	}
	return n
}

// awaitReaped waits until the server has reaped path, a container whose
// contents the recipe has given back; a node left under it keeps it.
func awaitReaped(t *testing.T, c *framework.Client, path string) {
	t.Helper()
	ctx := zktest.Context(t)
	ok := assert.Eventually(t, func() bool {
		there, _, err := c.Exists(ctx, path)
		return err == nil && !there
	}, 20*time.Second, 50*time.Millisecond, "%s was not reaped", path)
	if !ok {
		t.Errorf("left under %s: %v (ephemeral: %v)", path, tree(t, c, path), ephemerals(t, c, path))
	}
}
