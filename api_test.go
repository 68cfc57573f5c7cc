package zkrecipes_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const modulePath = "github.com/zkrecipes/zkrecipes"

// loadRecipes types every recipe under recipes/ (not what is internal to
// them) from the export data the go command builds, and returns them with
// the importer that read them.
func loadRecipes(t *testing.T, fset *token.FileSet) ([]*types.Package, types.Importer) {
	t.Helper()
	out, err := exec.Command("go", "list", "-export", "-deps",
		"-f", "{{.ImportPath}}\t{{.Export}}\t{{.DepOnly}}", "./recipes/...").Output()
	require.NoError(t, err, "go list: %s", stderrOf(err))
	exports := map[string]string{}
	var recipes []string
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		f := strings.Split(strings.TrimSpace(line), "\t")
		require.Len(t, f, 3, line)
		exports[f[0]] = f[1]
		if f[2] == "false" && !strings.Contains(f[0], "/internal/") {
			recipes = append(recipes, f[0])
		}
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(exports[path])
	})
	pkgs := make([]*types.Package, 0, len(recipes))
	for _, path := range recipes {
		pkg, err := imp.Import(path)
		require.NoError(t, err, path)
		pkgs = append(pkgs, pkg)
	}
	return pkgs, imp
}

func stderrOf(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(ee.Stderr)
	}
	return ""
}

// The exported API of every recipe keeps the rules of CONTRIBUTING.md's
// table that a machine can check: the lifecycle, listeners, holds,
// options, constructors and ctx first (the sentinels are checked in
// apisentinels_test.go). A recipe that drifts fails here, by name, before
// review.
func TestAPI_EveryRecipeSpeaksTheTablesVocabulary(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, _ := loadRecipes(t, fset)
	require.NotEmpty(t, pkgs)
	var drifts []string
	used := map[string]bool{}
	for _, pkg := range pkgs {
		d, u := checkAPI(apiPackage{pkg: pkg, fset: fset})
		drifts = append(drifts, d...)
		for k := range u {
			used[k] = true
		}
	}
	drifts = append(drifts, checkWithAcross(pkgs)...)
	var unknown []string
	for _, d := range drifts {
		if !slices.Contains(apiPending, d) {
			unknown = append(unknown, d)
		}
	}
	if len(unknown) > 0 {
		t.Errorf("drifts from CONTRIBUTING.md's vocabulary table:\n%s", strings.Join(unknown, "\n"))
	}
	for _, p := range apiPending {
		assert.Contains(t, drifts, p, "fixed: take it off apiPending")
	}
	for _, e := range apiExemptions {
		assert.True(t, used[e.name+" "+e.rule], "the exemption of %s from %s lets nothing off: remove it", e.name, e.rule)
	}
}

// The check finds each kind of drift it is meant to: a package planted
// with one of each (testdata/apidrift) is reported line by line, and
// nothing else is.
func TestAPI_APlantedDriftIsFound(t *testing.T) {
	fset := token.NewFileSet()
	dir := filepath.Join("testdata", "apidrift")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var files []*ast.File
	for _, e := range entries {
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		files = append(files, f)
	}
	recipes, imp := loadRecipes(t, fset) // apidrift imports framework
	conf := types.Config{Importer: imp}
	pkg, err := conf.Check(modulePath+"/testdata/apidrift", fset, files, nil)
	require.NoError(t, err)
	drifts, _ := checkAPI(apiPackage{pkg: pkg, fset: fset})
	assert.ElementsMatch(t, []string{
		"apidrift.Event.Node: an event's path is its field Path",
		"apidrift.Hold: is a hold (it has Lost) but has no Guard func() framework.Op",
		"apidrift.Hold.Name: a hold has no Name (the table's hold vocabulary)",
		"apidrift.Listener: a listener is a function of one event, not interface{OnEvent()}",
		"apidrift.New: is func(*framework.Client, string) *apidrift.Thing: a constructor is New(client, path, ...) (*T, error)",
		"apidrift.Option: the package has options but no WithLogger(*slog.Logger)",
		"apidrift.OtherOption: a recipe's package has one option type, Option",
		"apidrift.Participant: has no field Node string: a participant names its node's path Node and its data ID",
		"apidrift.Thing.Participants: is func() []apidrift.Participant, want func(context.Context) ([]apidrift.Participant, error)",
		"apidrift.Runner: runs in the background (it has Run) but has no Done func() <-chan struct{}",
		"apidrift.Thing: runs in the background (it has Start) but has no Done func() <-chan struct{}",
		"apidrift.Thing.AwaitReady: is func() error, want func(context.Context) error or (T, error)",
		"apidrift.Thing.AddListener: is func(func()) func(), want func(func(E)) func(): one function of one event, and the remove",
		"apidrift.Thing.Close: is func() error, want func(context.Context) error",
		"apidrift.Thing.Observe: is func(context.Context) <-chan int: told of changes by Watch(ctx) (<-chan T, error)",
		"apidrift.Thing.Configure: takes ...apidrift.OtherOption: a recipe's call takes its options as ...Option",
		"apidrift.Thing.Stop: a recipe ends with Close(ctx), a hold with Release(ctx): no Stop",
		"apidrift.Thing.Wait: takes a context.Context as parameter 2: ctx comes first",
		"apidrift.WithOther: returns apidrift.OtherOption: a recipe's options are of one type, Option",
		"apidrift.WithOwner: returns context.Context: a With... returns the package's option",
	}, drifts)

	var mutex *types.Package
	for _, p := range recipes {
		if p.Path() == modulePath+"/recipes/mutex" {
			mutex = p
		}
	}
	require.NotNil(t, mutex)
	assert.Equal(t, []string{"apidrift.WithErrorPolicy: takes (string) where mutex.WithErrorPolicy takes (framework.ErrorPolicy)"},
		checkWithAcross([]*types.Package{mutex, pkg}))
}

// A sentinel in the library's words ("zkrecipes: ...") is defined once,
// in the root package's errors.go, and re-exported by identity wherever
// else it is returned: never made again beside it.
func TestAPI_TheLibrarysSentinelsAreDefinedOnlyInTheRoot(t *testing.T) {
	fset := token.NewFileSet()
	var found []string
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != ".":
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || path == "errors.go":
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.HasPrefix(lit.Value, `"zkrecipes: `) {
				if call, ok := parentCall(f, lit); ok && isErrorsNew(call) {
					found = append(found, fset.Position(lit.Pos()).String())
				}
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
	assert.Empty(t, found, "errors.New in the library's words outside the root's errors.go")
}

// parentCall returns the call whose argument lit is.
func parentCall(f *ast.File, lit *ast.BasicLit) (*ast.CallExpr, bool) {
	var call *ast.CallExpr
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && len(c.Args) == 1 && c.Args[0] == ast.Expr(lit) {
			call = c
		}
		return call == nil
	})
	return call, call != nil
}

// isErrorsNew tells whether call is errors.New(...).
func isErrorsNew(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "errors" && sel.Sel.Name == "New"
}
