package footprint_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// httpPackages are the library's packages that may import net/http: they
// exist to serve HTTP, and a program imports them only to do so.
var httpPackages = []string{rootModule + "/recipes/leader/leaderhttp"}

func TestLibraryPackages_ImportNoNetHTTP(t *testing.T) {
	root := repoRoot(t)
	// The library as a user builds it: go.mod as it is, outside the
	// workspace.
	out := goCmd(t, root, []string{"GOWORK=off", "GOFLAGS=-mod=readonly", "GOTOOLCHAIN=local"},
		"list", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}", "./framework/...", "./recipes/...")
	seen := map[string]bool{}
	for line := range strings.Lines(out) {
		fields := strings.Fields(line)
		pkg, deps := fields[0], fields[1:]
		seen[pkg] = true
		if slices.Contains(httpPackages, pkg) {
			continue
		}
		assert.NotContains(t, deps, "net/http", "%s links net/http into every program that imports it", pkg)
	}
	for _, pkg := range []string{"/framework", "/recipes/mutex", "/recipes/leader"} {
		require.True(t, seen[rootModule+pkg], "go list did not list %s", rootModule+pkg)
	}
}
