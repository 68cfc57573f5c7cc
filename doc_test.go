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

// The README is one a newcomer reads to the end: at most 450 lines, with
// every recipe package and the metrics module in its package table, and
// zkr's reference in a page of its own.
func TestReadme_IsShortAndNamesEveryRecipe(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	assert.LessOrEqual(t, strings.Count(string(readme), "\n"), 450, "README.md's lines")
	dirs, err := os.ReadDir("recipes")
	require.NoError(t, err)
	for _, d := range dirs {
		if d.IsDir() && d.Name() != "internal" {
			assert.Contains(t, string(readme), "`recipes/"+d.Name()+"`", "README.md's package table")
		}
	}
	assert.Contains(t, string(readme), "`observe/otelzk`", "README.md's package table")
	assert.Contains(t, string(readme), "(docs/zkr.md)", "README.md links zkr's reference")
	_, err = os.Stat(filepath.Join("docs", "zkr.md"))
	assert.NoError(t, err, "zkr's reference")
}
