package zkrecipes_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The package doc lists every recipe package, so that a reader of
// pkg.go.dev finds them all from the module's root.
func TestDoc_ListsEveryRecipe(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	dirs, err := os.ReadDir("recipes")
	require.NoError(t, err)
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "internal" {
			continue
		}
		assert.Contains(t, string(doc), filepath.Join("recipes", d.Name())+":", "doc.go lists %s", d.Name())
	}
	for _, cmd := range []string{"zkr lock", "zkr rwlock", "zkr semaphore", "zkr elect", "zkr inspect"} {
		assert.True(t, strings.Contains(string(doc), cmd), "doc.go names %s", cmd)
	}
}
