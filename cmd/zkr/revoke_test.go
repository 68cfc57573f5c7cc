package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

func TestRevoke_NodeWithDataIsLeftAloneWithoutForce(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	g := newGate(t)
	// Not --revocable: zkr's node carries its host, pid and command.
	p := startZkr(t, nil, lockArgs(t, path, nil, g.argv("exit 0")...)...)
	require.Eventually(t, g.started, time.Minute, 20*time.Millisecond)
	nodes := zktest.Children(t, client(t), path)
	require.Len(t, nodes, 1)
	node := path + "/" + nodes[0]
	before, _, err := client(t).Get(ctxOf(t), node)
	require.NoError(t, err)
	require.NotEmpty(t, before)

	code, _, stderr := runZkr(t, "revoke", "--servers", zktest.Servers(t), node)
	assert.Equal(t, exitError, code, stderr)
	assert.Contains(t, stderr, "--force")
	after, _, err := client(t).Get(ctxOf(t), node)
	require.NoError(t, err)
	assert.Equal(t, before, after, "the node's data is unchanged")

	code, stdout, stderr := runZkr(t, "revoke", "--servers", zktest.Servers(t), "--force", node)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "revocation requested")
	g.open(t)
	assert.Equal(t, 0, p.wait(t, time.Minute), "a holder that is not revocable runs on")
}
