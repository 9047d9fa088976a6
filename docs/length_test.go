package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxFuncLines is the longest a product (non-test) function may be, from
// its func line to its closing brace, unless longFuncs names it with a
// reason. A function this long holds several ideas; each wants a name.
const maxFuncLines = 150

// longFuncs are the product functions allowed past maxFuncLines, by
// "package directory.[receiver.]name", each with why it stays whole. An
// entry for a function that no longer exists or has come under the limit
// fails the test too, so the list only shrinks.
var longFuncs = map[string]string{
	"internal/cfb/cfbtest.Build":    "a test helper (in a product package only so other packages' tests can import it): writes a compound file in one sequence of sectors, FAT and directory, as the format lays them out",
	"cmd/pakton.runReview":          "flag parsing and wiring of pakton review: one flag set, its checks and the hand-over to review.Run; the command files are flags and wiring only",
	"cmd/pakton.runReviewTrain":     "flag parsing and wiring of pakton review train, as runReview",
	"cmd/pakton.runEval":            "flag parsing and wiring of pakton eval legalbench: its flags, the provision mode they resolve to, the hits file and the report, in the order a reader of the command looks for them; cmd/pakton holds flags and wiring only",
	"internal/parse.docxBody.parse": "the WordprocessingML token loop: one switch over start, end and character tokens with the element stack, the skipped-element depth and the run state it keeps between them; its cases read the same state, so split apart they would pass it all around",
}

// TestFunctionLength fails on a product function longer than maxFuncLines
// that longFuncs does not name, and on a stale entry of longFuncs.
func TestFunctionLength(t *testing.T) {
	long := map[string]int{}
	walkGo(t, "..", func(path string, fset *token.FileSet, f *ast.File) {
		if strings.HasSuffix(path, "_test.go") {
			return
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
				long[funcKey(path, fd)] = n
			}
		}
	})
	var keys []string
	for k := range long {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := longFuncs[k]; !ok {
			t.Errorf("%s is %d lines, over %d: split it along its ideas, or add it to longFuncs (docs/length_test.go) with the reason it stays whole", k, long[k], maxFuncLines)
		}
	}
	for k := range longFuncs {
		if _, ok := long[k]; !ok {
			t.Errorf("longFuncs names %s, which is not over %d lines (or no longer exists): remove the entry", k, maxFuncLines)
		}
	}
}

// logOnly are the methods of a *testing.T that cannot fail a test.
var logOnly = map[string]bool{
	"Log": true, "Logf": true, "Skip": true, "Skipf": true, "SkipNow": true, "Helper": true, "Parallel": true,
	"Cleanup": true, "TempDir": true, "Name": true, "Setenv": true, "Context": true, "Chdir": true, "Deadline": true, "Output": true,
}

// TestEveryTestCanFail fails on a Test function that uses its *testing.T
// only to log and skip: a print-out that cannot fail is a benchmark or a
// developer command, not a test. (A test that hands its T to another
// function, or exits the process as a child process of a test does, counts
// as able to fail.)
func TestEveryTestCanFail(t *testing.T) {
	walkGo(t, "..", func(path string, _ *token.FileSet, f *ast.File) {
		if !strings.HasSuffix(path, "_test.go") {
			return
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "Test") || fd.Name.Name == "TestMain" {
				continue
			}
			ps := fd.Type.Params.List
			if len(ps) != 1 || len(ps[0].Names) != 1 {
				continue
			}
			if !canFail(fd.Body, ps[0].Names[0].Name) {
				t.Errorf("%s: %s only logs or skips: make it check something, or turn it into a benchmark or a developer command", path, fd.Name.Name)
			}
		}
	})
}

// canFail reports whether body uses the test's T (named tn) other than to
// log or skip, or panics or exits.
func canFail(body *ast.BlockStmt, tn string) bool {
	harmless := map[*ast.Ident]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == tn && logOnly[sel.Sel.Name] {
				harmless[id] = true
			}
		}
		return true
	})
	can := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Ident:
			if x.Name == tn && !harmless[x] {
				can = true
			}
		case *ast.CallExpr:
			switch fn := x.Fun.(type) {
			case *ast.Ident:
				can = can || fn.Name == "panic"
			case *ast.SelectorExpr:
				if pkg, ok := fn.X.(*ast.Ident); ok && pkg.Name == "os" && fn.Sel.Name == "Exit" {
					can = true
				}
			}
		}
		return !can
	})
	return can
}

// funcKey names a function as longFuncs does.
func funcKey(path string, fd *ast.FuncDecl) string {
	dir := filepath.ToSlash(filepath.Dir(path))
	dir = strings.TrimPrefix(strings.TrimPrefix(dir, ".."), "/")
	name := fd.Name.Name
	if fd.Recv != nil && len(fd.Recv.List) > 0 {
		typ := fd.Recv.List[0].Type
		if st, ok := typ.(*ast.StarExpr); ok {
			typ = st.X
		}
		if ix, ok := typ.(*ast.IndexExpr); ok {
			typ = ix.X
		}
		if id, ok := typ.(*ast.Ident); ok {
			name = id.Name + "." + name
		}
	}
	return dir + "." + name
}

// walkGo parses every Go file of the module under root (but testdata and
// hidden directories) and calls fn with it.
func walkGo(t *testing.T, root string, fn func(path string, fset *token.FileSet, f *ast.File)) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		fn(path, fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
