// Package docs holds pakton's documentation and the test that keeps
// ARCHITECTURE.md's map of the packages true: the floors of its package
// table and the rules under it are read from the page itself and checked
// against every package's imports, so the page and the code cannot drift
// apart silently.
package docs

import (
	"bufio"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/pakton/pakton"

// floorOrder lists the floors from the bottom up.
var floorOrder = []string{"base", "text", "storage", "indexing", "models", "answering", "faces", "command"}

// layout is what ARCHITECTURE.md says about the packages.
type layout struct {
	floor map[string]int      // package path (relative to the module) → floor
	never map[string][]string // package → packages it must not import
}

var codeRe = regexp.MustCompile("`([^`]+)`")

// readLayout parses the package table ("| floor | `pkg` | … |") and the rules
// table ("| `pkg`, … | `never`, … | why |") of ARCHITECTURE.md.
func readLayout(t *testing.T, path string) layout {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l := layout{floor: map[string]int{}, never: map[string][]string{}}
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			section = line
			continue
		case section != "## Packages, top down" || !strings.HasPrefix(line, "| "):
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 3 {
			continue
		}
		first := strings.TrimSpace(cells[0])
		if fl := slices.Index(floorOrder, first); fl >= 0 {
			for _, m := range codeRe.FindAllStringSubmatch(cells[1], -1) {
				if _, dup := l.floor[m[1]]; dup {
					t.Errorf("ARCHITECTURE.md lists %s twice", m[1])
				}
				l.floor[m[1]] = fl
			}
			continue
		}
		if !strings.HasPrefix(first, "`") {
			continue // a header or separator row
		}
		var never []string
		for _, m := range codeRe.FindAllStringSubmatch(cells[1], -1) {
			never = append(never, m[1])
		}
		for _, m := range codeRe.FindAllStringSubmatch(first, -1) {
			l.never[m[1]] = append(l.never[m[1]], never...)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(l.floor) == 0 {
		t.Fatal("ARCHITECTURE.md: no package table found under \"## Packages, top down\"")
	}
	return l
}

// floorOf returns the floor of pkg: its own row, else its nearest listed
// parent directory's.
func (l layout) floorOf(pkg string) (int, bool) {
	for p := pkg; p != "." && p != ""; p = filepath.ToSlash(filepath.Dir(p)) {
		if fl, ok := l.floor[p]; ok {
			return fl, true
		}
	}
	return 0, false
}

// packages returns every package of the module (relative path → its
// non-test imports inside the module), read with go/build for this platform.
func packages(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		bp, err := build.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return fmt.Errorf("%s: %w", path, err)
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		var own []string
		for _, imp := range bp.Imports {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				own = append(own, strings.TrimPrefix(strings.TrimPrefix(imp, module), "/"))
			}
		}
		out[rel] = own
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestArchitectureLayers fails when an import runs against the floors or the
// rules of ARCHITECTURE.md, or a package is missing from its table.
func TestArchitectureLayers(t *testing.T) {
	l := readLayout(t, "ARCHITECTURE.md")
	pkgs := packages(t, "..")
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages under the module root", len(pkgs))
	}
	names := make([]string, 0, len(pkgs))
	for p := range pkgs {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		if p == "docs" {
			continue // this test
		}
		fl, ok := l.floorOf(p)
		if !ok {
			t.Errorf("package %s is not in docs/ARCHITECTURE.md's package table: add a row with its floor", p)
			continue
		}
		for _, imp := range pkgs[p] {
			ifl, ok := l.floorOf(imp)
			if !ok {
				continue // reported as a package of its own
			}
			if ifl > fl {
				t.Errorf("%s (floor %s) imports %s (floor %s): an import runs up against docs/ARCHITECTURE.md", p, floorOrder[fl], imp, floorOrder[ifl])
			}
		}
	}
	for p, never := range l.never {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("ARCHITECTURE.md has a rule for %s, which is not a package", p)
			continue
		}
		// A rule holds for what p reaches through other packages too: the
		// review core must not pull in the model client by way of another package.
		via := reach(pkgs, p)
		for _, n := range never {
			if path, ok := via[n]; ok {
				t.Errorf("%s imports %s (%s), which docs/ARCHITECTURE.md says it never does", p, n, strings.Join(path, " → "))
			}
		}
	}
	for p := range l.floor {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("ARCHITECTURE.md lists %s, which is not a package (moved or removed? update the table)", p)
		}
	}
}

// reach returns every package p imports, directly or through others, each
// with one import path from p to it.
func reach(pkgs map[string][]string, p string) map[string][]string {
	out := map[string][]string{}
	var visit func(q string, path []string)
	visit = func(q string, path []string) {
		for _, imp := range pkgs[q] {
			if _, seen := out[imp]; seen {
				continue
			}
			next := append(slices.Clip(path), imp)
			out[imp] = next
			visit(imp, next)
		}
	}
	visit(p, []string{p})
	return out
}
