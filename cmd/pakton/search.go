package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/collection"
	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/search"
)

func runSearch(ctx context.Context, args []string) error {
	fs, g := newFlags("search", "search [flags] QUERY\n\nFinds the provisions of a collection that answer a question.")
	var docs stringList
	fs.Var(&docs, "doc", "search only this document: id or name (repeatable)")
	k := fs.Int("k", 5, "number of passages")
	asJSON := fs.Bool("json", false, "print a JSON object")
	full := fs.Bool("full", false, "print each passage in full (default: about 600 characters)")
	var stages search.Stages
	fs.BoolVar(&stages.NoRoute, "no-route", false, "search every document even when the question seems to name a contract")
	fs.BoolVar(&stages.NoProvisions, "no-provisions", false, "rank by the question's words only, without putting first the passage the review detectors find for a question about a playbook provision")
	stageFlags(fs, &stages)
	explain := fs.Bool("explain", false, "print the plan of the search: routing, the words dropped and added, the provision asked about, how each passage was scored (with --json: an \"explain\" object)")
	query, err := textArg(fs, args, "QUERY")
	if err != nil {
		return err
	}
	if *k <= 0 {
		return fmt.Errorf("-k %d: want a positive number", *k)
	}
	st, err := g.openCollectionReader(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	q := search.Query{Text: query, K: *k, Stages: stages, Explain: *explain}
	if q.Docs, err = docIDs(ctx, st, g.collection, docs); err != nil {
		return err
	}
	svc, sn, err := openSnapshot(ctx, st, g.collection, collection.Models{})
	if err != nil {
		return err
	}
	defer svc.Close()
	// After the load, which may have had to build the index (a large heap,
	// left to the usual collector).
	oneShotGC()
	res, err := sn.Search(ctx, q)
	if err != nil {
		return err
	}
	resp, err := sn.Respond(ctx, query, res)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(resp)
	}
	if resp.Explain != nil {
		resp.Explain.WriteText(stdout, sn.Index.DocName)
		fmt.Fprintln(stdout)
	}
	return writeSearchText(stdout, resp, *full)
}

// stageFlags defines the flags of the search's tuned stages that pakton
// search and pakton eval legalbench share (search.Stages; each command
// words its own --no-route and provision flags): each turns one stage off,
// for an ablation without a patch.
func stageFlags(fs *flag.FlagSet, s *search.Stages) {
	fs.BoolVar(&s.NoFraming, "no-framing", false, "keep the words the question frames itself with (\"does this contract mention\") among the words searched")
	fs.BoolVar(&s.NoAssociations, "no-associations", false, "do not add the words that co-occur with the question's words in the collection")
	fs.BoolVar(&s.NoHeadings, "no-headings", false, "do not add the body words of the clauses the question's words head")
	fs.BoolVar(&s.NoFill, "no-fill", false, "in a search narrowed to some contracts, return only passages that match the question's words")
	fs.BoolVar(&s.NoSpread, "no-spread", false, "put the review detectors' passage first even for a provision that pervades the contract (many passages rated near the best)")
	fs.BoolVar(&s.NoLearnt, "no-learnt", false, "do not add the words learnt from labelled questions like the question (the shipped model; in pakton eval legalbench, --learn's)")
}

// oneShotGC tunes the garbage collector for a command that answers once and
// exits: a question and its passages allocate a few tens of MB (the score
// array, the passages' documents) and free almost nothing before the
// process ends, so collecting on the way costs CPU and returns no memory.
// Collection is left to the memory limit (the index file is mapped, not on
// the heap), so a pathological question still cannot grow without bound. An
// explicit GOGC or GOMEMLIMIT in the environment wins.
func oneShotGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(oneShotHeapLimit)
}

// oneShotHeapLimit is the heap a one-shot search grows to before it
// collects at all.
const oneShotHeapLimit = 1 << 30

func writeSearchText(w io.Writer, resp *collection.Response, full bool) error {
	writeRoute(w, resp.Route)
	for _, a := range resp.NotFound {
		fmt.Fprintf(w, "Not found: the review detectors find no %s provision in %s (their confidence that it is there: %.2f); the passages below from it only match the question's words.\n\n", a.Provision, a.DocName, a.Confidence)
	}
	if len(resp.Hits) == 0 {
		_, err := fmt.Fprintln(w, "No passages found.")
		return err
	}
	for _, p := range resp.Hits {
		writePassage(w, p, full)
	}
	return nil
}

// maxListedCandidates is how many candidates of an ambiguous name
// writeRoute lists one per line.
const maxListedCandidates = 10

// writeRoute prints the routing decision: which contracts the question
// names and by which of their names, the candidates of an ambiguous name
// and how to choose one, a name no contract goes by.
func writeRoute(w io.Writer, r *search.Route) {
	if r == nil || r.Why == "" {
		return
	}
	fmt.Fprintf(w, "Routing: %s", r.Why)
	switch {
	case r.Decision == search.RouteAmbiguous:
		fmt.Fprintln(w)
		for i, c := range r.Candidates {
			if i == maxListedCandidates && len(r.Candidates) > maxListedCandidates+1 {
				// a name that fits a hundred contracts of a large collection
				fmt.Fprintf(w, "  … and %d more (\"pakton search --json\" lists them all)\n", len(r.Candidates)-i)
				break
			}
			writeCandidate(w, c)
		}
	case r.Decision == search.RouteUnknown && len(r.Nearest) > 0:
		fmt.Fprint(w, " (--no-route searches every document)\n")
		for _, c := range r.Nearest {
			writeCandidate(w, c)
		}
	case r.Decision.Narrowed():
		fmt.Fprint(w, " (--no-route searches every document)\n")
	default:
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

// writeCandidate prints a contract to choose: the --doc that chooses it
// and how it is called.
func writeCandidate(w io.Writer, c search.Candidate) {
	fmt.Fprintf(w, "  --doc %q", c.Name)
	switch {
	case c.Display != "":
		fmt.Fprintf(w, "   %s", c.Display)
	case c.Title != "" || c.Date != "":
		fmt.Fprintf(w, "   %s", strings.TrimSpace(c.Title+" "+datePart(c.Date)))
	}
	fmt.Fprintln(w)
}

// datePart renders a candidate's date in parentheses, or "".
func datePart(d string) string {
	if d == "" {
		return ""
	}
	return "(" + d + ")"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// writePassage prints one passage: a header line (rank, document, clause
// path, pages, span, score) and the quoted text, indented.
func writePassage(w io.Writer, p docread.Passage, full bool) {
	// The contract as people name it first; its file on the next line.
	title, file := p.DocName, ""
	if p.DocTitle != "" && p.DocTitle != p.DocName {
		title, file = p.DocTitle, p.DocName+", "
	}
	fmt.Fprintf(w, "%d. %s", p.Rank, title)
	if p.Path != "" {
		fmt.Fprintf(w, " — %s", p.Path)
	}
	if p.Provision != "" {
		fmt.Fprintf(w, "\n   %s%s%s, the review detectors' %s passage (confidence %.2f)\n", file, pagesText(p.Pages, p.PageLabels), p.Span, p.Provision, p.Score)
	} else {
		fmt.Fprintf(w, "\n   %s%s%s, score %.2f\n", file, pagesText(p.Pages, p.PageLabels), p.Span, p.Score)
	}
	text := strings.TrimSpace(p.Text)
	if !full {
		text = trimText(text, 600)
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if line == "" {
			fmt.Fprintln(w, "   │")
			continue
		}
		fmt.Fprintf(w, "   │ %s\n", line)
	}
	writeSupport(w, p.Support)
	fmt.Fprintln(w)
}

// writeSupport lists a passage's supporting evidence under it, one line
// each: the terms it uses with where they are defined, the clauses it
// refers to.
func writeSupport(w io.Writer, s *docread.Support) {
	if s == nil {
		return
	}
	for _, d := range s.Definitions {
		fmt.Fprintf(w, "   defined: %q — %s %s\n", d.Term, d.Path, d.Span)
	}
	for _, r := range s.References {
		switch {
		case r.Span != nil:
			fmt.Fprintf(w, "   refers to: %s → %s %s\n", r.Text, r.Path, *r.Span)
		case r.External != "":
			fmt.Fprintf(w, "   refers to: %s of %s (another instrument)\n", r.Text, r.External)
		default:
			fmt.Fprintf(w, "   refers to: %s (not found in this document)\n", r.Text)
		}
	}
}

// pagesText is the pages of a passage, with their printed numbers where
// they show one, followed by a comma, or "".
func pagesText(pages []int, labels []string) string {
	if p := document.FormatPages(pages, labels); p != "" {
		return p + ", "
	}
	return ""
}

// trimText cuts text to about n characters at a word boundary, marking the
// cut.
func trimText(text string, n int) string {
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	r := []rune(text)[:n]
	cut := string(r)
	if i := strings.LastIndexAny(cut, " \n"); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " \n,;:") + " […]"
}

// envSearchModels returns the embedding and rerank servers configured in
// the environment.
func envSearchModels() (search.Models, error) {
	var m search.Models
	emb, err := embedderFromEnv()
	if err != nil {
		return m, err
	}
	m.Embedder = asEmbedder(emb)
	rr, err := rerankerFromEnv()
	if err != nil {
		return m, err
	}
	if rr != nil {
		m.Reranker = rr
	}
	return m, nil
}
