package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/store/weaviate"
)

// runMigrate copies collections from one store to another (typically an
// embedded directory to a Weaviate cluster) without parsing anything again:
// every document's text, clause tree, source and artifacts (segment, vectors,
// graph, summary) are copied as stored, then read back from the destination
// and checked: the same documents, each with the same file checksums.
func runMigrate(ctx context.Context, args []string) error {
	fs := newCommandFlags("migrate", "--from DIR|URL --to URL|DIR [--collection NAME]",
		"Copies collections between stores (e.g. an embedded store to a Weaviate cluster) without re-parsing,\n"+
			"then verifies the document count and every file's checksum. Re-running resumes: documents already\n"+
			"copied with the same checksums are skipped.")
	from := fs.String("from", "", "source store: a directory or weaviate://host:port…")
	to := fs.String("to", "", "destination store: weaviate://host:port… or a directory")
	only := fs.String("collection", "", "copy only this collection (default: all)")
	quiet := fs.Bool("q", false, "no progress output")
	batch := fs.Int("batch", 16, "documents written per request batch")
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	if *from == "" || *to == "" {
		fs.Usage()
		return errors.New("--from and --to are required")
	}
	src, err := (&globals{store: *from}).openExisting(ctx)
	if err != nil {
		return fmt.Errorf("source: %w", err)
	}
	defer src.Close()
	var dst *store.Store
	if weaviate.IsURL(*to) {
		dst, err = weaviate.OpenStore(ctx, *to)
	} else {
		dst, err = store.Open(*to)
	}
	if err != nil {
		return fmt.Errorf("destination: %w", err)
	}
	defer dst.Close()
	cols, err := src.Collections(ctx)
	if err != nil {
		return err
	}
	var names []string
	for _, c := range cols {
		if (*only == "" && c.Docs > 0) || c.Name == *only {
			names = append(names, c.Name)
		}
	}
	if *only != "" && len(names) == 0 {
		return fmt.Errorf("no collection %q in %s", *only, src.Location())
	}
	for _, name := range names {
		if err := migrateCollection(ctx, src, dst, name, *batch, *quiet); err != nil {
			return fmt.Errorf("collection %q: %w", name, err)
		}
	}
	return nil
}

func migrateCollection(ctx context.Context, src, dst *store.Store, name string, batch int, quiet bool) error {
	start := time.Now()
	infos, err := src.List(ctx, name)
	if err != nil {
		return err
	}
	if err := dst.CreateCollection(ctx, name); err != nil {
		return err
	}
	want := map[string]map[string]string{}
	for _, in := range infos {
		if want[in.ID], err = src.Sums(ctx, name, in.ID); err != nil {
			return err
		}
	}
	// Resume: skip what the destination already holds identically.
	have, err := dst.List(ctx, name)
	if err != nil {
		return err
	}
	same := map[string]bool{}
	for _, in := range have {
		if w, ok := want[in.ID]; ok {
			if got, err := dst.Sums(ctx, name, in.ID); err == nil && maps.Equal(got, w) {
				same[in.ID] = true
			}
		}
	}
	recs := &store.Batch{Store: dst, Collection: name, Size: batch}
	if !quiet {
		recs.Flushed = func(copied int) {
			fmt.Fprintf(stderr, "\rmigrate %s: %d/%d copied (%d already there)", name, copied, len(infos)-len(same), len(same))
		}
	}
	for _, in := range infos {
		if err := ctx.Err(); err != nil {
			return err
		}
		if same[in.ID] {
			continue
		}
		rec, err := src.Get(ctx, name, in.ID)
		if err != nil {
			return err
		}
		if err := recs.Add(ctx, rec); err != nil {
			return err
		}
	}
	if err := recs.Flush(ctx); err != nil {
		return err
	}
	if !quiet && recs.Put() > 0 {
		fmt.Fprintln(stderr)
	}
	// Verify: the same set of documents, each with the same checksums, and
	// every file readable (Get checks each against its checksum).
	got, err := dst.List(ctx, name)
	if err != nil {
		return err
	}
	var bad []string
	seen := map[string]bool{}
	for _, in := range got {
		seen[in.ID] = true
		w, ok := want[in.ID]
		if !ok {
			bad = append(bad, in.Name+": in the destination only")
			continue
		}
		sums, err := dst.Sums(ctx, name, in.ID)
		if err != nil || !maps.Equal(sums, w) {
			bad = append(bad, fmt.Sprintf("%s: checksums differ (%v)", in.Name, err))
			continue
		}
		if _, err := dst.Get(ctx, name, in.ID); err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", in.Name, err))
		}
	}
	for _, in := range infos {
		if !seen[in.ID] {
			bad = append(bad, in.Name+": missing from the destination")
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("verification failed for %d documents; first: %s (re-run to resume)", len(bad), bad[0])
	}
	// Build the destination's search index now, so the first search opens it.
	ix, _, err := ingest.Load(ctx, dst, name)
	if err != nil {
		return err
	}
	files := 0
	for _, w := range want {
		files += len(w)
	}
	fmt.Fprintf(stdout, "%s: %d documents in %s, verified (count, and %d files read back against their checksums); %d copied, %d already there; search index %d documents; %.1fs\n",
		name, len(got), dst.Location(), files, recs.Put(), len(same), ix.Docs(), time.Since(start).Seconds())
	return nil
}
