package zkrecipes_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxFuncLines is the longest a function of the library may be, from its
// func line to its closing brace (STYLE.md: "functions under ~50 lines").
const maxFuncLines = 50

// funcLinesPending are the functions over the bound that another change
// is splitting; the test tolerates them, and no other.
var funcLinesPending = []string{
	"recipes/mutex.engine.acquire", // 49 lines between its braces
}

// longFuncs returns the functions of the Go files under root (tests,
// benchmarks and test data left out) longer than maxFuncLines, as
// "dir.Recv.Name: N lines".
func longFuncs(t *testing.T, root string) []string {
	t.Helper()
	fset := token.NewFileSet()
	var long []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != root && (d.Name() == "testdata" || d.Name() == "bench" || strings.HasPrefix(d.Name(), ".")):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if lines > maxFuncLines {
				long = append(long, fmt.Sprintf("%s.%s: %d lines", filepath.ToSlash(filepath.Dir(path)), funcName(fn), lines))
			}
		}
		return nil
	})
	require.NoError(t, err)
	return long
}

// funcName is a function's name, with its receiver's type if a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fn.Name.Name
		}
		return fn.Name.Name
	}
}

// No function of the library, the commands and the modules beside it is
// longer than maxFuncLines: a longer one is telling that it does two
// things.
func TestSource_NoFunctionIsLongerThanFiftyLines(t *testing.T) {
	var unknown []string
	for _, l := range longFuncs(t, ".") {
		if !slices.Contains(funcLinesPending, l[:strings.Index(l, ":")]) {
			unknown = append(unknown, l)
		}
	}
	assert.Empty(t, unknown, "functions over %d lines", maxFuncLines)
}

// The check finds a long function, and only it, in a planted file.
func TestSource_APlantedLongFunctionIsFound(t *testing.T) {
	dir := t.TempDir()
	body := "package p\n\nfunc short() {}\n\nfunc (r *R) long() {\n" + strings.Repeat("\t_ = 0\n", maxFuncLines-1) + "}\n\ntype R struct{}\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "p.go"), []byte(body), 0o644))
	long := longFuncs(t, dir)
	require.Len(t, long, 1)
	assert.True(t, strings.HasSuffix(long[0], ".R.long: 51 lines"), long[0])
}
