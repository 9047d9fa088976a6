package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/names"
	"github.com/pakton/pakton/internal/progress"
	"github.com/pakton/pakton/internal/server"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/usecase"
)

const docsUsage = `docs [flags]                     list the documents of the collection (--folder F: only those filed in F)
       pakton docs show [flags] ID|NAME        a document's metadata (format, pages, folder, parties, OCR, attachments, duplicates); --text: its canonical text as stored
       pakton docs folders [flags]              list the folders documents were filed in
       pakton docs families [flags]             list the groups of documents that are one contract (near-duplicates, versions)
       pakton docs rm [flags] ID|NAME…          remove documents (kept in the trash 30 days: docs undo brings them back; --now deletes at once)
       pakton docs undo [flags] [ID|NAME…]      put removed documents back (without a name: those removed last)
       pakton docs trash [flags]                list the removed documents the trash keeps; --empty deletes them
       pakton docs reindex [flags]              re-analyze stored documents and store their graphs (after upgrading pakton)
       pakton docs optimize [flags]             bring the search index up to date, merge its segments, learn its word associations and group its families
       pakton docs collections [flags]          list collections
       pakton docs rm-collection --yes NAME     delete a collection and its documents
       pakton docs gc [--min-age 1h]            on a cluster, remove the file parts of commits cut short (every collection)`

func runDocs(ctx context.Context, args []string) error {
	sub := "list"
	if len(args) > 0 && (args[0] == "list" || args[0] == "show" || args[0] == "folders" || args[0] == "families" || args[0] == "rm" || args[0] == "undo" || args[0] == "trash" || args[0] == "reindex" || args[0] == "optimize" || args[0] == "collections" || args[0] == "rm-collection" || args[0] == "gc") {
		sub, args = args[0], args[1:]
	}
	fs, g := newFlags("docs "+sub, docsUsage)
	asJSON := fs.Bool("json", false, "print JSON (list, show, folders, collections)")
	folder := fs.String("folder", "", "list: only documents filed in this folder or below it (as `pakton docs folders` names them)")
	asText := fs.Bool("text", false, "show: print the document's canonical text exactly as stored (what every span points into)")
	yes := fs.Bool("yes", false, "confirm rm-collection")
	now := fs.Bool("now", false, "rm: delete at once, without keeping the documents in the trash")
	empty := fs.Bool("empty", false, "trash: delete everything the trash keeps")
	minAge := fs.Duration("min-age", store.DefaultGCMinAge, "gc: leave unnamed file parts younger than this (a commit may be in progress)")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	st, err := g.openExisting(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	if sub == "list" || sub == "show" || sub == "folders" || sub == "families" || sub == "rm" || sub == "undo" || sub == "trash" || sub == "reindex" || sub == "optimize" {
		if err := checkCollection(ctx, st, g.collection); err != nil {
			return err
		}
	}
	switch sub {
	case "list":
		if len(rest) > 0 {
			return fmt.Errorf("unknown docs subcommand %q (want list, rm, reindex, collections, rm-collection)", rest[0])
		}
		return listDocs(ctx, st, g.collection, *folder, *asJSON)
	case "show":
		if len(rest) != 1 {
			return fmt.Errorf("docs show: name exactly one document (id or name)")
		}
		return showDoc(ctx, st, g.collection, rest[0], *asText, *asJSON)
	case "folders":
		infos, err := st.List(ctx, g.collection)
		if err != nil {
			return err
		}
		fc := usecase.Folders(infos)
		if *asJSON {
			return writeJSON(fc)
		}
		for _, f := range fc {
			fmt.Fprintf(stdout, "%5d  %s\n", f.Docs, f.Folder)
		}
		return nil
	case "families":
		fams, err := usecase.CollectionFamilies(ctx, st, g.collection)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(fams.Families)
		}
		if len(fams.Families) == 0 {
			fmt.Fprintf(stdout, "no two documents of collection %q are the same contract\n", g.collection)
			return nil
		}
		for _, f := range fams.Families {
			fmt.Fprintf(stdout, "%s: %d documents\n", f.ID, len(f.Members))
			for _, m := range f.Members {
				mark := " "
				if m.ID == f.Primary {
					mark = "*"
				}
				fmt.Fprintf(stdout, "  %s %s  %s  (%.0f%% shared with *)\n", mark, m.ID, m.Name, 100*m.Jaccard)
			}
		}
		fmt.Fprintf(stdout, "(* the copy shown for the family; pakton compare A --against B shows what differs)\n")
		return nil
	case "rm":
		return removeDocs(ctx, st, g.collection, rest, *now)
	case "undo":
		return undoRemove(ctx, st, g.collection, rest)
	case "trash":
		return listTrash(ctx, st, g.collection, *empty, *asJSON)
	case "optimize":
		if _, err := updateIndex(ctx, st, g.collection, false, learnAlways); err != nil {
			return err
		}
		updateFamilies(ctx, st, g.collection, true)
		return nil
	case "reindex":
		var bar *progress.Bar
		n, err := ingest.Reindex(ctx, st, g.collection, func(done, total int, name string) {
			if bar == nil {
				bar = progress.New(stderr, "reindex", total, 0)
			}
			bar.Update(done, 0, name)
		})
		if bar != nil {
			bar.Finish()
		}
		fmt.Fprintf(stdout, "re-analyzed %d documents of collection %q\n", n, g.collection)
		return err
	case "collections":
		cols, err := st.Collections(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(cols)
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "COLLECTION\tDOCS\tCREATED")
		for _, c := range cols {
			fmt.Fprintf(tw, "%s\t%d\t%s\n", c.Name, c.Docs, timeText(c.Created))
		}
		return tw.Flush()
	case "rm-collection":
		if len(rest) != 1 {
			return fmt.Errorf("docs rm-collection: name exactly one collection")
		}
		if !*yes {
			return fmt.Errorf("docs rm-collection %s deletes the collection and all its documents; add --yes to confirm", rest[0])
		}
		if err := st.DeleteCollection(ctx, rest[0]); err != nil {
			return err
		}
		if err := server.ForgetCollection(ctx, st, rest[0]); err != nil {
			fmt.Fprintf(stderr, "warning: %v\n", err)
		}
		fmt.Fprintf(stdout, "deleted collection %s\n", rest[0])
		return nil
	case "gc":
		return collectGarbage(ctx, st, *minAge, *asJSON)
	}
	return nil
}

// collectGarbage removes, in every collection, the files no document
// names (a commit cut short on a cluster) that are older than minAge.
func collectGarbage(ctx context.Context, st *store.Store, minAge time.Duration, asJSON bool) error {
	if minAge < time.Minute {
		return fmt.Errorf("docs gc: --min-age %s is too short: a commit in progress could lose its files (at least 1m)", minAge)
	}
	cols, err := st.Collections(ctx)
	if err != nil {
		return err
	}
	type result struct {
		Collection string `json:"collection"`
		store.GCStats
	}
	var out []result
	for _, c := range cols {
		gs, err := st.CollectGarbage(ctx, c.Name, minAge)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		out = append(out, result{c.Name, gs})
	}
	if asJSON {
		return writeJSON(out)
	}
	if !st.IsRemote() {
		fmt.Fprintf(stdout, "%s is a directory store: nothing to collect (opening it removes what its manifests do not name)\n", st.Location())
		return nil
	}
	for _, r := range out {
		fmt.Fprintf(stdout, "%s: %d file parts, %d unnamed removed, %d unnamed younger than %s left\n", r.Collection, r.Parts, r.Removed, r.Young, minAge)
	}
	return nil
}

func listDocs(ctx context.Context, st *store.Store, collection, folder string, asJSON bool) error {
	infos, err := st.List(ctx, collection)
	if err != nil {
		return err
	}
	if folder != "" {
		all := len(infos)
		kept := infos[:0]
		for _, in := range infos {
			if usecase.InFolder(docread.DocFolder(in), folder) {
				kept = append(kept, in)
			}
		}
		infos = kept
		if len(infos) == 0 && !asJSON {
			return fmt.Errorf("no document of the %d in collection %q is filed in folder %q (see pakton docs folders)", all, collection, folder)
		}
	}
	if asJSON {
		return writeJSON(infos)
	}
	if len(infos) == 0 {
		fmt.Fprintf(stdout, "collection %q in %s holds no documents; add some with \"pakton ingest --collection %s PATH\"\n", collection, st.Location(), collection)
		return nil
	}
	fams, _ := usecase.CollectionFamilies(ctx, st, collection) // no families is no column, not an error
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCONTRACT\tNAME\tFORMAT\tPAGES\tCHARS\tCLAUSES\tFAMILY\tINGESTED")
	for _, in := range infos {
		// The contract as people name it; the file name is NAME.
		title := "-"
		if nm, err := docread.DocNames(ctx, st, collection, in.ID); err == nil {
			title = names.Display(nm, in.Name)
		}
		pages := "-"
		if in.Pages > 0 {
			pages = fmt.Sprint(in.Pages)
		}
		fam := "-"
		if f := fams.Of(in.ID); f != nil {
			fam = fmt.Sprintf("%s (%d)", f.ID, len(f.Members))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", in.ID, title, in.Name, in.Format, pages, in.Runes, max(0, in.Nodes-1), fam, timeText(in.Source.IngestedAt))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%d documents in collection %q\n", len(infos), collection)
	return err
}

func timeText(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}

func writeJSON(v any) error {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
