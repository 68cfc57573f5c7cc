package footprint_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rootModule is the path of the library's module.
const rootModule = "github.com/zkrecipes/zkrecipes"

// maxUserModules bounds the modules a user's program gets besides its own:
// go-zookeeper, goid, testify and the few they need, with room to spare.
const maxUserModules = 10

// containerTooling names what only the container backend may bring.
var containerTooling = []string{"testcontainers", "moby", "docker", "containerd", "opencontainers"}

// userProgram imports what a service that locks and elects imports.
const userProgram = `package main

import (
	"fmt"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

func main() { fmt.Println(framework.Connect, mutex.New, leader.NewLatch) }
`

func TestUserModule_GraphHoldsNoContainerTooling(t *testing.T) {
	root := repoRoot(t)
	user := t.TempDir()
	goMod := "module example.com/user\n\n" +
		"go " + goVersion(t, root) + "\n\n" +
		"require " + rootModule + " v0.0.0\n\n" +
		"replace " + rootModule + " => " + root + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(user, "go.mod"), []byte(goMod), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(user, "main.go"), []byte(userProgram), 0o644))
	// The library's checksums, so that tidy needs no checksum database
	// for modules already in the cache; tidy drops what is not needed.
	sums, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(user, "go.sum"), sums, 0o644))

	goCmd(t, user, asUser, "mod", "tidy")
	out := goCmd(t, user, asUser, "list", "-m", "all")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Equal(t, "example.com/user", lines[0], "go list -m all starts with the main module")
	modules := lines[1:]
	t.Logf("a program importing framework, recipes/mutex and recipes/leader gets %d modules:\n%s",
		len(modules), strings.Join(modules, "\n"))
	for _, m := range modules {
		for _, bad := range containerTooling {
			assert.NotContains(t, m, bad, "container tooling in a user's module graph")
		}
	}
	assert.LessOrEqual(t, len(modules), maxUserModules, "modules in a user's graph")
}

// repoRoot returns the directory of the library's go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	goMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(goMod, []byte("module "+rootModule+"\n")), "%s is not the library's root", root)
	return root
}

// goVersion returns the go directive of the library's go.mod.
func goVersion(t *testing.T, root string) string {
	t.Helper()
	goMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	for line := range strings.Lines(string(goMod)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "go "); ok {
			return v
		}
	}
	t.Fatal("no go directive in the library's go.mod")
	return ""
}

// asUser is the environment of a user's build: outside this repository's
// workspace, free to update go.mod and go.sum.
var asUser = []string{"GOWORK=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local"}

// goCmd runs the go command in dir, with env added to the test's
// environment, and returns its standard output.
func goCmd(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	// go test puts its toolchain's bin first on PATH.
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "go %s:\n%s", strings.Join(args, " "), stderr.String())
	return stdout.String()
}
