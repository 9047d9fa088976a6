package usecase

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/agent"
	"github.com/pakton/pakton/internal/collection"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/playbook"
	"github.com/pakton/pakton/internal/store"
)

const msa = `MASTER SERVICES AGREEMENT

This Master Services Agreement is made between Acme Corp ("Customer") and Globex Ltd ("Supplier").

1. ASSIGNMENT

1.1 Neither party may assign this Agreement without the prior written consent of the other party.

2. GOVERNING LAW

2.1 This Agreement is governed by the laws of the State of New York.
`

// newService returns a service over a store whose collection "c" holds one
// contract and whose collection "empty" holds none.
func newService(t *testing.T) *collection.Service {
	t.Helper()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "msa.txt"), []byte(msa), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Ingest(t.Context(), st, "c", []string{dir}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateCollection(t.Context(), "empty"); err != nil {
		t.Fatal(err)
	}
	svc := collection.New(st, collection.Options{})
	t.Cleanup(svc.Close)
	return svc
}

func TestAnswering(t *testing.T) {
	svc := newService(t)
	if sn, err := Answering(t.Context(), svc, "c"); err != nil || sn.Index.Docs() != 1 {
		t.Fatalf("Answering(c) = %v, %v", sn, err)
	}
	_, err := Answering(t.Context(), svc, "empty")
	if !errors.Is(err, ErrEmptyCollection) || err.Error() != `collection "empty" holds no documents yet` {
		t.Errorf("Answering(empty) = %v", err)
	}
	if _, err := Answering(t.Context(), svc, "missing"); !errors.Is(err, store.ErrNotFound) || errors.Is(err, ErrEmptyCollection) {
		t.Errorf("Answering(missing) = %v", err)
	}
}

// TestAnswerEvidence: with no models (or a question asking for evidence),
// Answer builds the evidence report, quotes K provisions at most, and
// announces why only when asked to.
func TestAnswerEvidence(t *testing.T) {
	svc := newService(t)
	sn, err := Answering(t.Context(), svc, "c")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		asking   Asking
		q        Question
		announce string
	}{
		{"no models", Asking{}, Question{K: 1}, "no language model configured: building an evidence report"},
		{"evidence asked for", Asking{Models: &agent.Models{}}, Question{Evidence: true, Route: true}, "evidence report requested: quoting the best-matching provisions"},
		{"silent", Asking{}, Question{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var said []string
			q := tc.q
			q.Request = agent.Request{Question: "Can the supplier assign the agreement?"}
			if tc.announce != "" {
				q.Announce = func(s string) { said = append(said, s) }
			}
			rep, err := tc.asking.Answer(t.Context(), sn.Library(), q)
			if err != nil || rep == nil {
				t.Fatalf("Answer = %v, %v", rep, err)
			}
			if rep.Mode != report.ModeEvidence || len(rep.Sources) == 0 || !strings.Contains(rep.Sources[0].Quote, "assign") {
				t.Errorf("report: mode %q, sources %+v", rep.Mode, rep.Sources)
			}
			if q.K == 1 && len(rep.Sources) != 1 {
				t.Errorf("K=1 quoted %d provisions", len(rep.Sources))
			}
			if tc.announce != "" && (len(said) != 1 || said[0] != tc.announce) {
				t.Errorf("announced %q, want %q", said, tc.announce)
			}
		})
	}
}

// TestReviewing: the run reviews the collection with the playbook, offline
// without a model.
func TestReviewing(t *testing.T) {
	svc := newService(t)
	pb, det := review.Builtin()
	run, err := Reviewing{Store: svc.Store(), Collection: "c", Playbook: pb, Detectors: det}.Run()
	if err != nil {
		t.Fatal(err)
	}
	if run.Refiner != nil {
		t.Errorf("a model pass without a model: %T", run.Refiner)
	}
	tab, stats, err := run.Table(t.Context())
	if err != nil || len(tab.Rows) != 1 || stats.Contracts != 1 {
		t.Fatalf("table: %d rows, stats %+v, err %v", len(tab.Rows), stats, err)
	}
	if _, err := (Reviewing{Store: svc.Store(), Collection: "c", Playbook: &playbook.Playbook{}, Detectors: det}).Run(); err == nil {
		t.Error("an empty playbook was accepted")
	}
}

// TestDocuments: references resolve to ids in order; one that fits no
// document is a *DocumentError wrapping store.ErrNotFound, not ambiguous.
func TestDocuments(t *testing.T) {
	svc := newService(t)
	ids, err := Documents(t.Context(), svc.Store(), "c", []string{"msa.txt", "msa"})
	if err != nil || len(ids) != 2 || ids[0] != ids[1] {
		t.Fatalf("Documents = %v, %v", ids, err)
	}
	_, err = Documents(t.Context(), svc.Store(), "c", []string{"msa.txt", "nothing-like-it"})
	var de *DocumentError
	if !errors.As(err, &de) || de.Ref != "nothing-like-it" || de.Ambiguous() || !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown reference: %#v", err)
	}
}
