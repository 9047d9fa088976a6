package headline

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// The tuned constants are the ones docs/EVALUATION.md's "What was chosen on
// which set" names in its "in the code" column, each as the package's
// directory and the declared name: `internal/search.bm25K1`, or
// `internal/chunk.Options.withDefaults` for a method. A declaration is read
// from the package's source files, not imported, and printed without its
// comments, so rewording a comment does not change the fingerprint and
// changing a value does.

// chosenSection is the heading of the table that names the constants.
const chosenSection = "## What was chosen on which set"

var codeName = regexp.MustCompile("`(internal/[a-z0-9_/]+)\\.([A-Za-z_][A-Za-z0-9_.]*)`")

// Named returns the constants the EVALUATION.md page names in its "What was
// chosen on which set" table, as "dir.Name", sorted and without repeats.
func Named(evaluationPage string) ([]string, error) {
	f, err := os.Open(evaluationPage)
	if err != nil {
		return nil, fmt.Errorf("tuned constants: %w", err)
	}
	defer f.Close()
	seen := map[string]bool{}
	in := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == chosenSection
			continue
		}
		if !in || !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for _, m := range codeName.FindAllStringSubmatch(cells[len(cells)-1], -1) {
			seen[m[1]+"."+m[2]] = true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("tuned constants: %s: %w", evaluationPage, err)
	}
	if len(seen) == 0 {
		return nil, fmt.Errorf("tuned constants: %s names none under %q", evaluationPage, chosenSection)
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

// Declarations reads each named constant's declaration from the source
// files under root: "dir.Name" → its declaration, printed without
// comments. A name that is not declared in its directory is an error.
func Declarations(root string, names []string) (map[string]string, error) {
	byDir := map[string][]string{}
	for _, n := range names {
		dir, name, ok := splitName(n)
		if !ok {
			return nil, fmt.Errorf("tuned constants: %q is not dir.Name", n)
		}
		byDir[dir] = append(byDir[dir], name)
	}
	out := map[string]string{}
	for dir, want := range byDir {
		decls, err := packageDecls(filepath.Join(root, filepath.FromSlash(dir)))
		if err != nil {
			return nil, err
		}
		for _, name := range want {
			d, ok := decls[name]
			if !ok {
				return nil, fmt.Errorf("tuned constants: %s declares no %s (docs/EVALUATION.md names it under %q)", dir, name, chosenSection)
			}
			out[dir+"."+name] = d
		}
	}
	return out, nil
}

// Fingerprint is the SHA-256 of the declarations, sorted. A declaration
// holds its own name, so the fingerprint changes with a value or a name but
// not when a constant moves to another package: moving code needs no new
// measurement.
func Fingerprint(decls map[string]string) string {
	texts := make([]string, 0, len(decls))
	for _, d := range decls {
		texts = append(texts, d)
	}
	sort.Strings(texts)
	h := sha256.New()
	for _, d := range texts {
		fmt.Fprintf(h, "%s\n", d)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Changed lists, in words, how the declarations now differ from the ones
// the numbers were measured with.
func Changed(measured, now map[string]string) []string {
	var out []string
	for n, was := range measured {
		is, ok := now[n]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s is no longer named (was `%s`)", n, was))
		case is != was:
			out = append(out, fmt.Sprintf("%s was `%s`, is `%s`", n, was, is))
		}
	}
	for n, is := range now {
		if _, ok := measured[n]; !ok {
			out = append(out, fmt.Sprintf("%s is new (`%s`)", n, is))
		}
	}
	sort.Strings(out)
	return out
}

func splitName(n string) (dir, name string, ok bool) {
	slash := strings.LastIndex(n, "/")
	dot := strings.Index(n[slash+1:], ".")
	if slash < 0 || dot <= 0 {
		return "", "", false
	}
	return n[:slash+1+dot], n[slash+2+dot:], true
}

// packageDecls returns every top-level constant, variable, type, function
// and method ("Type.method") of the Go package in dir (its non-test
// files), printed without comments.
func packageDecls(dir string) (map[string]string, error) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("tuned constants: %w", err)
	}
	out := map[string]string{}
	print := func(node any) (string, error) {
		var b bytes.Buffer
		if err := (&printer.Config{Mode: printer.RawFormat}).Fprint(&b, fset, node); err != nil {
			return "", err
		}
		return strings.Join(strings.Fields(b.String()), " "), nil
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("tuned constants: %w", err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.ValueSpec:
						text, err := print(sp)
						if err != nil {
							return nil, err
						}
						for _, id := range sp.Names {
							out[id.Name] = d.Tok.String() + " " + text
						}
					case *ast.TypeSpec:
						text, err := print(sp)
						if err != nil {
							return nil, err
						}
						out[sp.Name.Name] = "type " + text
					}
				}
			case *ast.FuncDecl:
				key := d.Name.Name
				if d.Recv != nil && len(d.Recv.List) > 0 {
					key = recvName(d.Recv.List[0].Type) + "." + key
				}
				text, err := print(d)
				if err != nil {
					return nil, err
				}
				out[key] = text
			}
		}
	}
	return out, nil
}

func recvName(t ast.Expr) string {
	switch t := t.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}
