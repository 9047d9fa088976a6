package review_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/reviewtest"
	"github.com/pakton/pakton/internal/store"
)

// counting counts the contracts a reviewer really reviews.
type counting struct {
	*review.Reviewer
	calls atomic.Int32
}

func (c *counting) Review(ctx context.Context, d detect.Doc) (review.Row, error) {
	c.calls.Add(1)
	return c.Reviewer.Review(ctx, d)
}

func TestRunKillAndResume(t *testing.T) {
	st := reviewtest.Store(t, "deal")
	infos, err := st.List(t.Context(), "deal")
	if err != nil {
		t.Fatal(err)
	}
	total := len(infos)
	dir := t.TempDir()
	rev := &counting{Reviewer: reviewtest.Reviewer(t)}

	// First run: cancelled once two contracts are finished.
	ctx, cancel := context.WithCancel(context.Background())
	run := &review.Run{Store: st, Collection: "deal", Reviewer: rev, Dir: dir, Concurrency: 1,
		Progress: func(p review.RunProgress) {
			if p.Done >= 2 {
				cancel()
			}
		}}
	if _, _, err := run.Table(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: err = %v, want context.Canceled", err)
	}
	first := int(rev.calls.Load())
	if first >= total {
		t.Fatalf("the cancelled run reviewed all %d contracts", first)
	}
	kept, _ := filepath.Glob(filepath.Join(dir, "rows", "*.json"))
	if len(kept) < 2 {
		t.Fatalf("kept %d rows after the cancelled run, want at least 2", len(kept))
	}

	// The finished part of the table is readable before the run ends.
	part, err := (&review.Run{Store: st, Collection: "deal", Reviewer: rev, Dir: dir}).Kept(t.Context())
	if err != nil || len(part) != len(kept) {
		t.Errorf("Kept: %d rows, %v; want %d", len(part), err, len(kept))
	}

	// Second run: only the contracts not kept are reviewed.
	rev.calls.Store(0)
	run = &review.Run{Store: st, Collection: "deal", Reviewer: rev, Dir: dir, Concurrency: 2}
	tab, stats, err := run.Table(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := int(rev.calls.Load()); got != total-len(kept) {
		t.Errorf("resumed run reviewed %d contracts, want %d (total %d, kept %d)", got, total-len(kept), total, len(kept))
	}
	if stats.Reused != len(kept) || stats.Reviewed != total-len(kept) {
		t.Errorf("stats %+v, want %d reused", stats, len(kept))
	}
	checkComplete(t, tab, infos)

	// The same table as a fresh run with no kept rows.
	fresh, _, err := (&review.Run{Store: st, Collection: "deal", Reviewer: reviewtest.Reviewer(t)}).Table(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i := range fresh.Rows {
		if a, b := summary(fresh.Rows[i]), summary(tab.Rows[i]); a != b {
			t.Errorf("row %d: resumed %q, fresh %q", i, b, a)
		}
	}

	// Third run: nothing to do.
	rev.calls.Store(0)
	if _, _, err := run.Table(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := rev.calls.Load(); n != 0 {
		t.Errorf("a finished run reviewed %d contracts again", n)
	}

	// A changed contract is reviewed again; a different playbook redoes all.
	changed := filepath.Join(t.TempDir(), "mutual-nda.md")
	raw, _ := os.ReadFile(reviewtest.Contracts(t)[2])
	os.WriteFile(changed, append(raw, []byte("\n\nThis Agreement is governed by the laws of the State of Delaware.\n")...), 0o644)
	reingest(t, st, changed)
	rev.calls.Store(0)
	if _, _, err := run.Table(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := rev.calls.Load(); n != 1 {
		t.Errorf("after one contract changed, %d were reviewed again, want 1", n)
	}
	sub, err := reviewtest.Playbook(t).Select([]string{"Governing Law"})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := review.NewReviewer(sub, nil)
	if err != nil {
		t.Fatal(err)
	}
	other := &counting{Reviewer: r2}
	if _, _, err := (&review.Run{Store: st, Collection: "deal", Reviewer: other, Dir: dir}).Table(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := int(other.calls.Load()); n != total {
		t.Errorf("another playbook reused rows: reviewed %d of %d", n, total)
	}
}

func TestRunUnreadableDocument(t *testing.T) {
	st := reviewtest.Store(t, "deal")
	infos, _ := st.List(t.Context(), "deal")
	bad := infos[1]
	reviewtest.Corrupt(t, st, "deal", bad.ID)
	dir := t.TempDir()
	var last review.RunProgress
	run := &review.Run{Store: st, Collection: "deal", Reviewer: reviewtest.Reviewer(t), Dir: dir,
		Progress: func(p review.RunProgress) { last = p }}
	tab, stats, err := run.Table(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checkComplete(t, tab, infos)
	row := tab.Rows[1]
	if row.Error == "" || !strings.Contains(row.Error, "cannot read") || len(row.Cells) != 0 {
		t.Errorf("unreadable row: %+v", row)
	}
	for i, r := range tab.Rows {
		if i != 1 && (r.Error != "" || len(r.Cells) != len(tab.Provisions)) {
			t.Errorf("row %d (%s): error %q, %d cells", i, r.DocName, r.Error, len(r.Cells))
		}
	}
	if stats.Failed != 1 || last.Failed != 1 || last.Done != len(infos) {
		t.Errorf("stats %+v, last progress %+v", stats, last)
	}
	if _, err := os.Stat(filepath.Join(dir, "rows", bad.ID+".json")); err == nil {
		t.Error("the unreadable row was kept; a resumed run would not try it again")
	}
}

func TestRunSelectsDocs(t *testing.T) {
	st := reviewtest.Store(t, "deal")
	infos, _ := st.List(t.Context(), "deal")
	cases := []struct {
		name string
		docs []string
		rows int
		err  bool
	}{
		{"all", nil, len(infos), false},
		{"one", []string{infos[0].ID}, 1, false},
		{"unknown", []string{"nope"}, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tab, _, err := (&review.Run{Store: st, Collection: "deal", Reviewer: reviewtest.Reviewer(t), Docs: c.docs}).Table(context.Background())
			if c.err {
				if !errors.Is(err, store.ErrNotFound) {
					t.Fatalf("err = %v, want not found", err)
				}
				return
			}
			if err != nil || len(tab.Rows) != c.rows {
				t.Fatalf("err %v, rows %d, want %d", err, len(tab.Rows), c.rows)
			}
		})
	}
	if _, _, err := (&review.Run{Store: st, Collection: "missing", Reviewer: reviewtest.Reviewer(t)}).Table(context.Background()); err == nil {
		t.Error("no error for a missing collection")
	}
}

func checkComplete(t *testing.T, tab *review.Table, infos []store.DocInfo) {
	t.Helper()
	if len(tab.Rows) != len(infos) {
		t.Fatalf("%d rows, want %d", len(tab.Rows), len(infos))
	}
	for i, r := range tab.Rows {
		if r.DocID != infos[i].ID {
			t.Errorf("row %d is %s, want %s (collection order)", i, r.DocID, infos[i].ID)
		}
		if r.Error == "" && len(r.Cells) != len(tab.Provisions) {
			t.Errorf("row %d has %d cells, want %d", i, len(r.Cells), len(tab.Provisions))
		}
	}
}

func summary(r review.Row) string {
	var b strings.Builder
	b.WriteString(r.DocID + r.Error)
	for _, c := range r.Cells {
		b.WriteString("|" + c.Provision)
		if c.Found {
			b.WriteString("+")
		}
		for _, e := range c.Extracts {
			b.WriteString(e.Span.String())
		}
	}
	return b.String()
}

func reingest(t *testing.T, st *store.Store, path string) {
	t.Helper()
	reviewtest.IngestFiles(t, st, "deal", path)
}

// memRows is a review.RowKeeper in memory (a server on a cluster keeps
// rows as shared records).
type memRows struct {
	mu   sync.Mutex
	rows map[string][]byte
}

func (m *memRows) KeptRows(_ context.Context) (map[string][]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.rows), nil
}

func (m *memRows) KeepRow(_ context.Context, id string, raw []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rows[id] = raw
	return nil
}

// TestRunRowKeeper: with Rows set, a run keeps its rows there and not in
// Dir, and another run given the same keeper (another server) shows them
// (Kept) and reuses them, reviewing only a contract whose row is missing.
func TestRunRowKeeper(t *testing.T) {
	st := reviewtest.Store(t, "deal")
	infos, _ := st.List(t.Context(), "deal")
	keeper := &memRows{rows: map[string][]byte{}}
	dir := t.TempDir()
	rev := &counting{Reviewer: reviewtest.Reviewer(t)}
	run := &review.Run{Store: st, Collection: "deal", Reviewer: rev, Dir: dir, Rows: keeper}
	if _, _, err := run.Table(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(keeper.rows) != len(infos) {
		t.Fatalf("%d rows kept, want %d", len(keeper.rows), len(infos))
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "rows")); len(ents) != 0 {
		t.Fatalf("%d row files in Dir with a keeper", len(ents))
	}
	delete(keeper.rows, infos[0].ID)
	other := &counting{Reviewer: reviewtest.Reviewer(t)}
	run2 := &review.Run{Store: st, Collection: "deal", Reviewer: other, Rows: keeper}
	if kept, err := run2.Kept(t.Context()); err != nil || len(kept) != len(infos)-1 {
		t.Fatalf("kept through another run: %d, %v; want %d", len(kept), err, len(infos)-1)
	}
	tab, stats, err := run2.Table(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checkComplete(t, tab, infos)
	if other.calls.Load() != 1 || stats.Reused != len(infos)-1 {
		t.Fatalf("resumed elsewhere: %d reviewed, stats %+v; want 1 reviewed, %d reused", other.calls.Load(), stats, len(infos)-1)
	}
}
