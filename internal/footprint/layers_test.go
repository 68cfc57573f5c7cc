package footprint_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// frameworkLayers are the framework's internal packages from the ground
// up: each may import, of the framework's packages, only those below it.
// (What they may import from the rest of the module, DESIGN's layers say.)
var frameworkLayers = []string{
	rootModule + "/framework/internal/lease",
	rootModule + "/framework/internal/wire",
	rootModule + "/framework/internal/watches",
}

func TestFrameworkInternals_ImportOnlyTheLayersBelow(t *testing.T) {
	root := repoRoot(t)
	out := goCmd(t, root, []string{"GOWORK=off", "GOFLAGS=-mod=readonly", "GOTOOLCHAIN=local"},
		"list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./framework/internal/...")
	seen := map[string]bool{}
	for line := range strings.Lines(out) {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		seen[pkg] = true
		level := slices.Index(frameworkLayers, pkg)
		require.GreaterOrEqual(t, level, 0, "%s is on no layer of frameworkLayers", pkg)
		for _, imp := range imports {
			if !strings.HasPrefix(imp, rootModule+"/framework") {
				continue
			}
			below := slices.Index(frameworkLayers, imp)
			assert.True(t, below >= 0 && below < level, "%s imports %s, which is not below it", pkg, imp)
		}
	}
	for _, pkg := range frameworkLayers {
		assert.True(t, seen[pkg], "go list did not list %s", pkg)
	}
}
