package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/pakton/pakton/internal/atomicfile"
	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/progress"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/answer"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/export"
	"github.com/pakton/pakton/internal/review/modelpass"
	"github.com/pakton/pakton/internal/review/playbook"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/usecase"
)

// reviewSubcommands are the "pakton review NAME" subcommands ("train" and
// others), added by the files that implement them in their init functions.
var reviewSubcommands = map[string]func([]string) error{}

// runDir is where "pakton review" keeps its resumable state inside --out.
const runDir = ".pakton-review"

func runReview(ctx context.Context, args []string) error {
	if len(args) > 0 {
		if sub, ok := reviewSubcommands[args[0]]; ok {
			return sub(args[1:])
		}
	}
	fs, g := newFlags("review", "review [flags]\n\nReviews every contract of a collection against a playbook of provisions and writes\nthe table (CSV, XLSX, JSON, HTML) into --out. Re-running the same command resumes:\ncontracts already reviewed (and unchanged) are not reviewed again. See docs/REVIEW.md.")
	pbPath := fs.String("playbook", "", "playbook: a built-in one by name (\"builtin\", the default; \"merger\", merger-agreement deal points) or a file (YAML, docs/PLAYBOOKS.md)")
	detPath := fs.String("detectors", "", "detectors file written by \"pakton review train\"; default: the built-in detectors")
	out := fs.String("out", "", "output directory (default: review-COLLECTION)")
	provs := fs.String("provisions", "", "review only these provisions (comma-separated names)")
	var docs stringList
	fs.Var(&docs, "doc", "review only this document: id or name (repeatable)")
	conc := fs.Int("concurrency", 0, "contracts reviewed at once (default: the number of CPUs)")
	formats := fs.String("format", "csv,xlsx,json,html", "output formats: csv, xlsx, json, html (comma-separated) or all")
	resume := fs.Bool("resume", true, "reuse the rows an earlier run of the same review kept in --out (false: start afresh)")
	list := fs.Bool("list", false, "print the playbook's provisions and exit")
	dryRun := fs.Bool("dry-run", false, "print what the review would do (contracts, cells, model calls and tokens) and exit")
	offline := fs.Bool("offline", false, "skip the model pass even when a model server is configured")
	withCorr := fs.Bool("include-correspondence", false, "review cover e-mails, letters and indexes too (left out as correspondence by default)")
	models := addModelFlags(fs)
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q (subcommands: %s)", rest[0], subcommandNames())
	}
	pb, det, err := loadPlaybook(*pbPath, splitList(*provs))
	if err != nil {
		return err
	}
	if *detPath != "" {
		if det, err = detect.LoadDetectors(*detPath); err != nil {
			return err
		}
	}
	if *list {
		return listProvisions(stdout, pb)
	}
	fmts, err := export.ParseFormats(*formats)
	if err != nil {
		return err
	}
	if *conc < 0 {
		return fmt.Errorf("--concurrency %d: want a positive number", *conc)
	}
	if *out == "" {
		*out = "review-" + g.collection
	}
	state := filepath.Join(*out, runDir)
	if !*resume {
		if err := os.RemoveAll(filepath.Join(state, "rows")); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(state, 0o755); err != nil {
		return err
	}
	// Answers a killed run was writing (its rows and exports are cleaned
	// by the run and by the export).
	atomicfile.RemoveStale(filepath.Join(state, "model-cache"), 0)
	st, err := g.openCollection(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	reviewing := usecase.Reviewing{Store: st, Collection: g.collection, Playbook: pb, Detectors: det}
	if reviewing.Docs, err = docIDs(ctx, st, g.collection, docs); err != nil {
		return err
	}

	roles, err := models.roles()
	if err != nil {
		return err
	}
	if roles.Configured() && !*offline {
		// The reviewer role (PAKTON_LLM_REVIEWER_MODEL, defaulting to the
		// default model) may name a model of its own for review.
		if reviewing.Chat, err = roles.Chat(llm.RoleReviewer); err != nil {
			return err
		}
		reviewing.ModelCache = filepath.Join(state, "model-cache")
	}
	run, err := reviewing.Run()
	if err != nil {
		return err
	}
	run.Dir, run.Concurrency, run.IncludeCorrespondence = state, *conc, *withCorr
	// The exports read the table a row at a time from the rows the run
	// keeps on disk, so the run need not hold every contract's extracts: a
	// review of a large collection then takes memory for its cells' answers
	// and for what the spreadsheet and HTML report hold until they are
	// written (CSV and JSON are written as they are read).
	run.Light = true
	pass, _ := run.Refiner.(*modelpass.Pass)
	if *dryRun {
		return reviewDryRun(ctx, stdout, run, pb)
	}

	var bar *progress.Bar
	var barMu sync.Mutex // the model pass reports cells from its own goroutines
	done := 0
	run.Progress = func(p review.RunProgress) {
		barMu.Lock()
		defer barMu.Unlock()
		if bar == nil {
			bar = progress.New(stderr, "review", p.Total, 0)
			if p.Reused > 0 {
				bar.Note(fmt.Sprintf("resuming: %d of %d contracts already reviewed in %s", p.Reused, p.Total, *out))
			}
		}
		done = p.Done
		bar.Update(p.Done, 0, p.Current)
	}
	if pass != nil {
		pass.Progress = func(c modelpass.CellProgress) {
			barMu.Lock()
			defer barMu.Unlock()
			if bar != nil {
				bar.Update(done, 0, cellProgress(c))
			}
		}
	}
	start := time.Now()
	tab, stats, err := run.Table(ctx)
	if bar != nil {
		bar.Finish()
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("review interrupted; the finished contracts are kept in %s: run the same command again to finish", *out)
		}
		return err
	}
	if len(tab.Correspondence) > 0 {
		fmt.Fprintf(stderr, "left out as correspondence, not contracts (--include-correspondence reviews them): %s\n", strings.Join(tab.Correspondence, ", "))
	}
	if len(tab.Rows) == 0 {
		return fmt.Errorf("collection %q in %s holds no documents; add some with \"pakton ingest PATH\"", g.collection, st.Location())
	}
	decisions, err := review.LoadDecisions(filepath.Join(*out, "decisions.json"))
	if err != nil {
		return err
	}
	rv := &export.Review{Table: tab, Decisions: decisions, Collection: g.collection, Created: time.Now(), Text: storeText(ctx, st, g.collection)}
	if run.Light {
		rv.Row = func(i int) (review.Row, error) { return run.FullRow(tab.Rows[i]) }
	}
	paths, err := export.WriteFiles(*out, fmts, rv)
	if err != nil {
		return err
	}
	writeReviewSummary(stdout, tab, stats, time.Since(start))
	if pass != nil {
		sp := pass.Spent()
		fmt.Fprintf(stdout, "\nModel pass (%s): %d calls, %d prompt and %d completion tokens; %d answers from the cache.\n",
			pass.Version(), sp.Calls, sp.PromptTokens, sp.CompletionTokens, sp.Cached)
	}
	fmt.Fprintf(stdout, "\nWrote:\n")
	for _, p := range paths {
		fmt.Fprintf(stdout, "  %s\n", p)
	}
	if stats.Failed > 0 {
		return fmt.Errorf("%d of %d contracts could not be reviewed (see the Error column)", stats.Failed, stats.Contracts)
	}
	return nil
}

func subcommandNames() string {
	if len(reviewSubcommands) == 0 {
		return "none"
	}
	var names []string
	for n := range reviewSubcommands {
		names = append(names, n)
	}
	return strings.Join(names, ", ")
}

// loadPlaybook reads a playbook file (the built-in playbook when path is
// empty), narrowed to provisions, with the detectors to find it.
func loadPlaybook(path string, provisions []string) (*playbook.Playbook, *detect.Detectors, error) {
	if review.IsBuiltinName(path) {
		// a built-in playbook by name ("merger"); a file of that name is
		// read as ./merger
		return review.Choose(path, "", nil, provisions)
	}
	var data []byte
	if path != "" {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return nil, nil, fmt.Errorf("playbook %s: %w", path, err)
		}
		if strings.TrimSpace(string(data)) == "" {
			return nil, nil, fmt.Errorf("playbook %s: empty file", path)
		}
	}
	return review.Choose("", path, data, provisions)
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func listProvisions(w io.Writer, pb *playbook.Playbook) error {
	fmt.Fprintf(w, "Playbook %s", pb.Name)
	if pb.Version != "" {
		fmt.Fprintf(w, " (version %s)", pb.Version)
	}
	fmt.Fprintf(w, ": %d provisions\n\n", len(pb.Provisions))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROVISION\tANSWER\tDEFINITION")
	for _, p := range pb.Provisions {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Name, p.Answer, progress.Shorten(strings.Join(strings.Fields(p.Definition), " "), 90))
	}
	return tw.Flush()
}

func reviewDryRun(ctx context.Context, w io.Writer, run *review.Run, pb *playbook.Playbook) error {
	docs, err := run.Store.List(ctx, run.Collection)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Review of collection %q with playbook %s: %d contracts × %d provisions = %d cells.\n",
		run.Collection, pb.Name, len(docs), len(pb.Provisions), len(docs)*len(pb.Provisions))
	if run.Refiner == nil {
		fmt.Fprintln(w, "Offline review: no model calls.")
		return nil
	}
	est, err := run.Estimate(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Model pass: %d calls (%d more answered from the cache), about %d prompt tokens and at most %d completion tokens.\n",
		est.Calls, est.Cached, est.PromptTokens, est.CompletionTokens)
	return nil
}

// storeText reads a contract's canonical text for the HTML report.
func storeText(ctx context.Context, st *store.Store, collection string) func(string) (string, error) {
	return func(id string) (string, error) {
		rec, err := st.Document(ctx, collection, id)
		if err != nil {
			return "", err
		}
		return rec.Doc.Text, nil
	}
}

// writeReviewSummary prints, per provision, in how many contracts it was
// found, how confident the finding was, and its most common answers.
func writeReviewSummary(w io.Writer, tab *review.Table, stats review.RunStats, took time.Duration) {
	fmt.Fprintf(w, "Reviewed %d contracts × %d provisions in %s (%d reviewed now, %d kept from an earlier run, %d failed).\n\n",
		stats.Contracts, len(tab.Provisions), progress.Duration(took), stats.Reviewed, stats.Reused, stats.Failed)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROVISION\tFOUND\tNOT FOUND\tMEAN CONFIDENCE (FOUND)\tANSWERS")
	for _, p := range tab.Provisions {
		var found, notFound int
		var conf float64
		answers := map[string]int{}
		for _, row := range tab.Rows {
			for _, c := range row.Cells {
				if c.Provision != p {
					continue
				}
				if c.Found {
					found++
					conf += c.Confidence
				} else {
					notFound++
				}
				if a := c.Answer; a != nil && a.Kind != answer.KindNotFound && a.Text != "" {
					answers[oneLineAnswer(a)]++
				}
			}
		}
		mean := "-"
		if found > 0 {
			mean = fmt.Sprintf("%.2f", conf/float64(found))
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\n", p, found, notFound, mean, topAnswers(answers, 3))
	}
	tw.Flush()
	for _, row := range tab.Rows {
		if row.Error != "" {
			fmt.Fprintf(w, "\n%s: %s", row.DocName, row.Error)
		}
	}
	if stats.Failed > 0 {
		fmt.Fprintln(w)
	}
}

// oneLineAnswer is an answer as the summary counts it: "Yes", "No",
// "Conditional", or the value, cut to 30 characters.
func oneLineAnswer(a *answer.Answer) string {
	t := strings.Join(strings.Fields(a.Text), " ")
	if r := []rune(t); len(r) > 30 {
		t = string(r[:29]) + "…"
	}
	return t
}

// topAnswers lists the n most common answers with their counts ("Yes 4,
// No 2"), then how many other answers there are.
func topAnswers(counts map[string]int, n int) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for i, k := range keys {
		if i == n {
			parts = append(parts, fmt.Sprintf("%d more", len(keys)-n))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}
