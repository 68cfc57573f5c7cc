package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// zkr is a program users build and ship: it links no test-only code,
// package testing included. Its servers (zkr server, zkr demo) come from
// zktesting, which therefore must not import testing either.
func TestZkr_LinksNoTestingPackage(t *testing.T) {
	goTool, err := exec.LookPath("go") // go test puts its own go first in PATH
	require.NoError(t, err)
	list := exec.CommandContext(t.Context(), goTool, "list", "-deps", "-f", "{{.ImportPath}}", ".")
	var stderr strings.Builder
	list.Stderr = &stderr
	out, err := list.Output()
	require.NoError(t, err, stderr.String())
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/zkrecipes/zkrecipes/zktesting", "the listing is zkr's")
	for _, dep := range deps {
		assert.False(t, dep == "testing" || strings.HasPrefix(dep, "testing/"), "zkr links %s", dep)
	}
}
