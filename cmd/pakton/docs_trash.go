package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/store"
)

// removeDocs removes the named documents: into the collection's trash for
// the undo window (store.Trash), or at once with now.
func removeDocs(ctx context.Context, st *store.Store, c string, refs []string, now bool) error {
	if len(refs) == 0 {
		return fmt.Errorf("docs rm: name at least one document (id or name)")
	}
	var failed int
	for _, ref := range refs {
		info, err := docread.FindDocExact(ctx, st, c, ref)
		if err == nil {
			if now {
				err = st.Delete(ctx, c, info.ID)
			} else {
				_, err = st.Trash(ctx, c, info.ID, time.Now())
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "pakton docs rm: %v\n", err)
			failed++
			continue
		}
		if now {
			fmt.Fprintf(stdout, "deleted %s %s\n", info.ID, info.Name)
		} else {
			fmt.Fprintf(stdout, "removed %s %s (kept in the trash for %d days: pakton docs undo)\n", info.ID, info.Name, int(store.TrashKeep.Hours()/24))
		}
	}
	if failed < len(refs) {
		// Mark them deleted in the search index now: the next search
		// opens it as it is.
		large, err := updateIndex(ctx, st, c, false, learnIfLarge)
		if err != nil {
			return err
		}
		updateFamilies(ctx, st, c, large)
	}
	if _, err := st.PurgeTrash(ctx, c, time.Now(), false); err != nil {
		fmt.Fprintf(stderr, "pakton docs rm: emptying the trash of what is older than %d days: %v\n", int(store.TrashKeep.Hours()/24), err)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d documents not removed", failed, len(refs))
	}
	return nil
}

// undoRemove puts removed documents back: the named ones (id or name as
// removed), or without names those removed last (in the same second).
func undoRemove(ctx context.Context, st *store.Store, c string, refs []string) error {
	trash, err := st.ListTrash(ctx, c)
	if err != nil {
		return err
	}
	if len(trash) == 0 {
		return fmt.Errorf("the trash of collection %q is empty: nothing to undo", c)
	}
	var ids []string
	if len(refs) == 0 {
		last := trash[0].DeletedAt
		for _, e := range trash {
			if last.Sub(e.DeletedAt) < time.Second {
				ids = append(ids, e.ID)
			}
		}
	}
	for _, ref := range refs {
		found := ""
		for _, e := range trash {
			if e.ID == ref || e.Name == ref {
				found = e.ID
				break
			}
		}
		if found == "" {
			return fmt.Errorf("no removed document %q in the trash of collection %q (pakton docs trash lists them)", ref, c)
		}
		ids = append(ids, found)
	}
	var failed int
	for _, id := range ids {
		e, err := st.Restore(ctx, c, id)
		if err != nil {
			if errors.Is(err, store.ErrNewerVersion) {
				err = fmt.Errorf("%s: %w; it stays in the trash", e.Name, err)
			}
			fmt.Fprintf(stderr, "pakton docs undo: %v\n", err)
			failed++
			continue
		}
		fmt.Fprintf(stdout, "restored %s %s\n", e.ID, e.Name)
	}
	if failed < len(ids) {
		large, err := updateIndex(ctx, st, c, false, learnIfLarge)
		if err != nil {
			return err
		}
		updateFamilies(ctx, st, c, large)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d documents not restored", failed, len(ids))
	}
	return nil
}

// listTrash prints what the trash keeps, or empties it.
func listTrash(ctx context.Context, st *store.Store, c string, empty, asJSON bool) error {
	if empty {
		n, err := st.PurgeTrash(ctx, c, time.Now(), true)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "deleted %d documents from the trash of collection %q\n", n, c)
		return nil
	}
	trash, err := st.ListTrash(ctx, c)
	if err != nil {
		return err
	}
	if asJSON {
		if trash == nil {
			trash = []store.TrashEntry{}
		}
		return writeJSON(trash)
	}
	if len(trash) == 0 {
		fmt.Fprintf(stdout, "the trash of collection %q is empty\n", c)
		return nil
	}
	for _, e := range trash {
		fmt.Fprintf(stdout, "%s  %s  removed %s, kept until %s\n", e.ID, e.Name, e.DeletedAt.Local().Format("2006-01-02 15:04"), e.Until.Local().Format("2006-01-02"))
	}
	return nil
}
