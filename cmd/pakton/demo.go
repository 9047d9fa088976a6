package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pakton/pakton/examples"
	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
)

// demoQuestions are the sample questions the demo answers by default
// (indexes into examples/questions.txt): four agreements, each with
// its answer in a sub-clause.
var demoQuestions = []int{1, 5, 8, 10}

func runDemo(ctx context.Context, args []string) error {
	fset, _ := newFlags("demo", "demo [flags]\n\nIngests the bundled sample contracts into a temporary store (removed afterwards)\nand answers sample questions with cited provisions. Needs no model server.")
	all := fset.Bool("all", false, "answer every sample question, not just four")
	k := fset.Int("k", 3, "provisions per question")
	if _, err := parseArgs(fset, args); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "pakton-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	contracts := filepath.Join(tmp, "contracts")
	if err := writeExamples(contracts); err != nil {
		return err
	}
	st, err := store.Open(filepath.Join(tmp, "store"))
	if err != nil {
		return err
	}
	defer st.Close()

	fmt.Fprintf(stdout, "pakton demo — five fictional agreements, searched offline with no model server.\n\n")
	sum, err := ingestWithProgress(ctx, st, store.DefaultCollection, []string{contracts}, ingest.Options{}, false)
	if err != nil {
		return err
	}
	if err := sum.Err(); err != nil {
		return err
	}
	ix, err := ingest.LoadIndex(ctx, st, store.DefaultCollection)
	if err != nil {
		return err
	}
	qs := examples.Questions()
	pick := demoQuestions
	if *all {
		pick = nil
		for i := range qs {
			pick = append(pick, i)
		}
	}
	for _, i := range pick {
		if i >= len(qs) || ctx.Err() != nil {
			continue
		}
		if err := demoAnswer(ctx, stdout, st, ix, qs[i], *k); err != nil {
			return err
		}
	}
	if err := demoReview(ctx, stdout, st, ix); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nTry your own: pakton ingest DIR, then pakton search \"QUESTION\" (or --json),\n"+
		"and pakton review --out DIR for the whole playbook as CSV, XLSX, JSON and HTML.\n")
	return ctx.Err()
}

// demoProvisions are the built-in playbook's provisions the demo reviews.
var demoProvisions = []string{"Governing Law", "Anti-Assignment", "Cap on Liability", "Termination for Convenience", "Change of Control", "Source Code Escrow"}

// demoReview reviews the sample contracts against a few provisions of the
// built-in playbook, offline, and prints per contract its name, how many
// were found and which were not.
func demoReview(ctx context.Context, w io.Writer, st *store.Store, ix *search.Index) error {
	pb, det := review.Builtin()
	pb, err := pb.Select(demoProvisions)
	if err != nil {
		return err
	}
	rev, err := review.NewReviewer(pb, det)
	if err != nil {
		return err
	}
	infos, err := st.List(ctx, store.DefaultCollection)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nReview (offline detectors): %s.\n", strings.Join(demoProvisions, ", "))
	for _, in := range infos {
		rec, err := st.Document(ctx, store.DefaultCollection, in.ID)
		if err != nil {
			return err
		}
		row, err := rev.Review(ctx, detect.Doc{ID: in.ID, Name: in.Name, Doc: rec.Doc, Tree: docread.Tree(rec), Stored: docread.StoredReview(ctx, st, store.DefaultCollection, in.ID)})
		if err != nil {
			return err
		}
		var missing []string
		for _, c := range row.Cells {
			if !c.Found {
				missing = append(missing, c.Provision)
			}
		}
		line := fmt.Sprintf("  %s\n      found %d of %d", demoName(ix, in.ID, in.Name), len(row.Cells)-len(missing), len(row.Cells))
		if len(missing) > 0 {
			line += "; not found: " + strings.Join(missing, ", ")
		}
		fmt.Fprintln(w, line)
	}
	return nil
}

// writeExamples copies the embedded sample contracts to dir.
func writeExamples(dir string) error {
	return fs.WalkDir(examples.FS, "contracts", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := examples.FS.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(p, "contracts/")))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}

// demoName is a contract as people name it (title, parties, date), its file
// after it, or the file alone when it has no name.
func demoName(ix *search.Index, id, file string) string {
	if d := ix.DocDisplay(id); d != "" && d != file {
		return d + " (" + file + ")"
	}
	return file
}

// demoAnswer prints one question, the document it was routed to and its top
// provisions, each quote on a few wrapped lines.
func demoAnswer(ctx context.Context, w io.Writer, st *store.Store, ix *search.Index, question string, k int) error {
	res, err := ix.Search(ctx, search.Query{Text: question, K: k})
	if err != nil {
		return err
	}
	ps, err := docread.Passages(ctx, st, store.DefaultCollection, res.Hits)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nQ: %s\n", question)
	if len(res.RoutedTo) > 0 {
		names := make([]string, len(res.RoutedTo))
		for i, id := range res.RoutedTo {
			names[i] = demoName(ix, id, ix.DocName(id))
		}
		fmt.Fprintf(w, "   routed to %s\n", strings.Join(names, ", "))
	}
	for _, p := range ps {
		where := p.Path
		if where == "" {
			where = "(preamble)"
		}
		fmt.Fprintf(w, "  %d. %s  %s%s\n", p.Rank, where, pagesText(p.Pages, p.PageLabels), p.Span)
		quote := trimText(strings.Join(strings.Fields(p.Text), " "), 200)
		for _, line := range wrap("“"+quote+"”", 74) {
			fmt.Fprintf(w, "     %s\n", line)
		}
	}
	return nil
}

// wrap breaks text into lines of at most width characters at spaces.
func wrap(text string, width int) []string {
	var lines []string
	var cur strings.Builder
	n := 0
	for _, word := range strings.Fields(text) {
		wl := len([]rune(word))
		if n > 0 && n+1+wl > width {
			lines = append(lines, cur.String())
			cur.Reset()
			n = 0
		}
		if n > 0 {
			cur.WriteByte(' ')
			n++
		}
		cur.WriteString(word)
		n += wl
	}
	if n > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}
