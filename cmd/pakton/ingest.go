package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/pakton/pakton/internal/agent"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/progress"
	"github.com/pakton/pakton/internal/store"
)

func runIngest(ctx context.Context, args []string) error {
	fs, g := newFlags("ingest", "ingest [flags] PATH…\n\nAdds contracts (files, or directories walked recursively) to a collection.\nRe-ingesting a changed file replaces its document; unchanged files are skipped.")
	pf := addParseFlags(fs)
	memory := addMemoryFlag(fs)
	force := fs.Bool("force", false, "re-ingest files even when unchanged")
	workers := fs.Int("j", 0, "files parsed at once (default: number of CPUs)")
	quiet := fs.Bool("q", false, "no progress output")
	summarize := fs.Bool("summarize", false, "have the archivist model write each document's summary (one model call per document; needs a configured model)")
	mf := addModelFlags(fs)
	paths, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		fs.Usage()
		return fmt.Errorf("no PATH given")
	}
	popt, err := pf.options()
	if err != nil {
		return err
	}
	budget, err := memoryOption(*memory)
	if err != nil {
		return err
	}
	limitHeap()
	st, err := g.openOrCreate(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	emb, err := embedderFromEnv()
	if err != nil {
		return err
	}
	opt := ingest.Options{Parse: popt, Force: *force, Workers: *workers, Embedder: asEmbedder(emb), Budget: ingest.NewBudget(budget)}
	if *summarize {
		roles, err := mf.roles()
		if err != nil {
			return err
		}
		if !roles.Configured() {
			return fmt.Errorf("--summarize needs a language model: set --llm-url and --llm-model (or PAKTON_LLM_URL and PAKTON_LLM_MODEL)")
		}
		chat, err := roles.Chat(llm.RoleArchivist)
		if err != nil {
			return err
		}
		opt.Summarize = func(ctx context.Context, doc *document.Document) (string, error) {
			return agent.Summarize(ctx, chat, doc)
		}
	}
	sum, err := ingestWithProgress(ctx, st, g.collection, paths, opt, *quiet)
	if err != nil {
		return err
	}
	if emb != nil {
		if n := emb.Stats().Truncated; n > 0 {
			fmt.Fprintf(stderr, "ingest: %d passages are longer than the context of embedding model %s: their vectors cover their beginning (every word is still searchable)\n", n, emb.Name())
		}
	}
	// Bring the collection's search index up to date now (new segments for
	// what was added, deletions marked, merges), so the next search just
	// opens it.
	stored := sum.Count(ingest.StatusAdded) + sum.Count(ingest.StatusReplaced)
	large, err := updateIndex(ctx, st, g.collection, *quiet, learnIfLarge)
	if err != nil && (stored > 0 || !errors.Is(err, store.ErrNotFound)) {
		// (A new collection none of whose files could be stored has no
		// index to update: the failures below say why.)
		return err
	}
	if stored > 0 {
		updateFamilies(ctx, st, g.collection, large)
	}
	if n := sum.Count(ingest.StatusFailed); n > 0 {
		return fmt.Errorf("%d of %d files failed (the others are stored)", n, len(sum.Files))
	}
	return nil
}

// ingestWithProgress runs ingest.Ingest with a progress bar on stderr and
// prints the summary on stdout.
func ingestWithProgress(ctx context.Context, st *store.Store, collection string, paths []string, opt ingest.Options, quiet bool) (ingest.Summary, error) {
	var bar *progress.Bar
	tty := progress.IsTerminal(stderr)
	if !quiet {
		opt.Progress = func(p ingest.Progress) {
			if p.Done == 0 { // files found, none finished
				bar = progress.New(stderr, "ingest", p.Total, p.TotalBytes)
				if tty {
					bar.Update(0, 0, "")
				}
				return
			}
			bar.SetTotal(p.Total, p.TotalBytes) // an e-mail's attachments add to it
			line := fmt.Sprintf("%s (%s)", p.File, p.Status)
			switch {
			case tty && p.Status == ingest.StatusFailed:
				bar.Printf("failed: %s: %s", p.File, p.Reason)
			case !tty && p.Reason != "" && p.Status != ingest.StatusUnchanged:
				line += ": " + p.Reason
			}
			bar.Update(p.Done, p.Bytes, line)
		}
		// Slow steps (OCR) report per page; bar is set before any file starts.
		opt.Parse.Progress = func(msg string) { bar.Note(msg) }
	}
	sum, err := ingest.Ingest(ctx, st, collection, paths, opt)
	if bar != nil {
		bar.Finish()
	}
	if rerr := sum.Report(stdout); rerr != nil && err == nil {
		err = rerr
	}
	return sum, err
}
