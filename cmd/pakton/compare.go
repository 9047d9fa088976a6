package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pakton/pakton/internal/atomicfile"
	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/compare"
	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/parse"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/usecase"
)

const compareUsage = `compare [flags] CONTRACT --against TEMPLATE
       compare [flags] TEMPLATE CONTRACT

Compares a contract with a template (the firm's standard form, or an earlier
version) clause by clause: the template's clauses missing from the contract,
those changed (with the words that differ, and what makes a change
substantive: a "not" inserted, "may" made "shall", a number changed) and the
contract's new clauses, wherever they sit. CONTRACT and TEMPLATE are each a
document of the collection (id or name) or a file to read; given as two
names, the first is the template (the base, as diff reads OLD NEW).

--redline FILE.docx writes the comparison as a Word document: the template's
text with the contract's differences as tracked changes (insertions and
deletions with author and date) that a reviewer accepts or rejects in Word or
LibreOffice.`

func runCompare(ctx context.Context, args []string) error {
	fs, g := newFlags("compare", compareUsage)
	against := fs.String("against", "", "the template or earlier version: a document of the collection (id or name) or a file")
	asJSON := fs.Bool("json", false, `print {"missing": [...], "changed": [...], "added": [...]} as JSON`)
	redlineTo := fs.String("redline", "", "also write the redline to this .docx file: the template with the contract's differences as tracked changes")
	author := fs.String("author", "pakton", "the author of the redline's tracked changes")
	pf := addParseFlags(fs)
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) == 2 && *against == "" {
		// compare TEMPLATE CONTRACT: the base first, as diff reads OLD NEW.
		*against, rest = rest[0], rest[1:]
	}
	if len(rest) != 1 || *against == "" {
		fs.Usage()
		return fmt.Errorf("name one CONTRACT and --against TEMPLATE, or TEMPLATE CONTRACT")
	}
	popt, err := pf.options()
	if err != nil {
		return err
	}
	var st *store.Store
	side := func(ref string) (compare.Side, string, error) {
		if fi, err := os.Stat(ref); err == nil && !fi.IsDir() {
			doc, err := parse.File(ctx, ref, popt)
			if err != nil {
				return compare.Side{}, "", err
			}
			return compare.Side{Doc: doc, Tree: clause.Parse(doc)}, ref, nil
		}
		if st == nil {
			s, err := g.openExisting(ctx)
			if err != nil {
				return compare.Side{}, "", fmt.Errorf("%q is no file, and the store cannot be read to find it as a document: %w", ref, err)
			}
			st = s
			if err := checkCollection(ctx, st, g.collection); err != nil {
				return compare.Side{}, "", err
			}
		}
		info, err := docread.FindDoc(ctx, st, g.collection, ref)
		if err != nil {
			return compare.Side{}, "", err
		}
		s, err := usecase.CompareSide(ctx, st, g.collection, info.ID)
		return s, info.Name, err
	}
	defer func() {
		if st != nil {
			st.Close()
		}
	}()
	c, cname, err := side(rest[0])
	if err != nil {
		return err
	}
	t, tname, err := side(*against)
	if err != nil {
		return err
	}
	r := compare.Compare(c, t, compare.Options{})
	if *redlineTo != "" {
		if err := writeRedline(*redlineTo, c, t, *author, cname, tname); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "redline written to %s (%s against %s, tracked changes by %s)\n", *redlineTo, cname, tname, *author)
	}
	if *asJSON {
		return writeJSON(r)
	}
	return writeComparison(stdout, r, cname, tname)
}

// writeRedline writes the redline .docx atomically.
func writeRedline(path string, contract, template compare.Side, author, cname, tname string) error {
	if !strings.EqualFold(filepath.Ext(path), ".docx") {
		return fmt.Errorf("--redline %s: name a .docx file", path)
	}
	var buf bytes.Buffer
	if err := compare.Redline(&buf, contract, template, compare.RedlineOptions{Author: author, Title: cname + " against " + tname}); err != nil {
		return err
	}
	return atomicfile.Write(path, buf.Bytes(), 0o644)
}

func writeComparison(w io.Writer, r compare.Result, contract, template string) error {
	substantive := 0
	for _, ch := range r.Changed {
		if len(ch.Substantive) > 0 {
			substantive++
		}
	}
	fmt.Fprintf(w, "%s against %s: %d clauses the same, %d changed (%d substantive), %d missing, %d added (%s of the template's words kept)\n",
		contract, template, r.Same, len(r.Changed), substantive, len(r.Missing), len(r.Added), compare.Percent(r.Similarity, len(r.Changed)+len(r.Missing)+len(r.Added) > 0))
	name := func(c compare.Clause) string {
		s := c.Path
		if s == "" {
			s = "the opening"
		}
		if c.Paragraphs {
			h := ""
			if c.Heading != "" {
				h = " " + c.Heading
			}
			return "paragraphs" + h + " in " + s
		}
		if c.Heading != "" && !strings.Contains(s, c.Heading) {
			s += " " + c.Heading
		}
		if c.Clauses > 1 {
			s += fmt.Sprintf(" (%d clauses)", c.Clauses)
		}
		return s
	}
	if len(r.Missing) > 0 {
		fmt.Fprintf(w, "\nMISSING: in the template, not in the contract\n")
		for _, c := range r.Missing {
			fmt.Fprintf(w, "  %s: %s\n", name(c), preview(c.Text, 100))
		}
	}
	if len(r.Changed) > 0 {
		fmt.Fprintf(w, "\nCHANGED: template → contract ([-removed-] {+inserted+})\n")
		for _, ch := range r.Changed {
			moved := ""
			if ch.Moved {
				moved = ", moved"
			}
			fmt.Fprintf(w, "  %s → %s (%s similar%s)\n", name(ch.Template), name(ch.Contract), compare.Percent(ch.Similarity, true), moved)
			if len(ch.Substantive) > 0 {
				fmt.Fprintf(w, "    SUBSTANTIVE: %s\n", strings.Join(ch.Substantive, "; "))
			}
			fmt.Fprint(w, "    ")
			for i, op := range ch.Diff {
				if i > 0 {
					fmt.Fprint(w, " ")
				}
				switch op.Op {
				case "-":
					fmt.Fprintf(w, "[-%s-]", op.Text)
				case "+":
					fmt.Fprintf(w, "{+%s+}", op.Text)
				default:
					fmt.Fprint(w, compare.Elide(op.Text, 60))
				}
			}
			fmt.Fprintln(w)
		}
	}
	if len(r.Added) > 0 {
		fmt.Fprintf(w, "\nADDED: in the contract, not in the template\n")
		for _, c := range r.Added {
			fmt.Fprintf(w, "  %s: %s\n", name(c), preview(c.Text, 100))
		}
	}
	return nil
}

// preview is the start of a clause's text on one line.
func preview(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
