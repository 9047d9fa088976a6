package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/config"
	"github.com/pakton/pakton/internal/store"
)

// ingestedStore ingests the sample contracts into a new store named by the
// environment and returns its directory.
func ingestedStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	storeDir := filepath.Join(dir, "store")
	t.Setenv(config.EnvStore, storeDir)
	t.Setenv(config.EnvCollection, "")
	noModel(t)
	src := filepath.Join(dir, "src")
	if err := writeExamples(src); err != nil {
		t.Fatal(err)
	}
	if _, _, err := capture(t, runIngest, src); err != nil {
		t.Fatal(err)
	}
	return storeDir
}

// A mistyped --store is an error naming it, and nothing is created there;
// only ingest (and serve, keys create) make a store, and they say so.
func TestMistypedStore(t *testing.T) {
	good := ingestedStore(t)
	typo := good + "x"
	for _, tc := range []struct {
		name string
		run  func(context.Context, []string) error
		args []string
	}{
		{"search", runSearch, []string{"notice"}},
		{"ask", runAsk, []string{"--evidence", "what notice is needed?"}},
		{"docs", runDocs, nil},
		{"docs collections", runDocs, []string{"collections"}},
		{"docs rm", runDocs, []string{"rm", "mutual-nda.md"}},
		{"keys list", runKeys, []string{"list"}},
		{"mcp", runMCP, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := capture(t, tc.run, append(tc.args, "--store", typo)...)
			if err == nil || !strings.Contains(err.Error(), "no pakton store at "+typo) || !strings.Contains(err.Error(), "--store") {
				t.Errorf("error %v, want one naming the missing store %s and --store", err, typo)
			}
			if _, err := os.Stat(typo); !os.IsNotExist(err) {
				t.Errorf("%s was created (stat: %v)", typo, err)
			}
		})
	}
	// The default store, not there yet: the error says how to start.
	t.Setenv(config.EnvStore, "")
	t.Setenv("XDG_DATA_HOME", filepath.Join(t.TempDir(), "data"))
	_, _, err := capture(t, runSearch, "notice")
	if err == nil || !strings.Contains(err.Error(), "yet: add contracts with \"pakton ingest PATH\"") {
		t.Errorf("search before any ingest: %v", err)
	}

	_, errOut, err := capture(t, runIngest, "--store", typo, filepath.Join(filepath.Dir(good), "src", "mutual-nda.md"))
	if err != nil || !strings.Contains(errOut, "created a new, empty store at "+typo) {
		t.Errorf("ingest into a new store: %v; stderr:\n%s", err, errOut)
	}
	_, errOut, _ = capture(t, runIngest, "--store", typo, filepath.Join(filepath.Dir(good), "src", "mutual-nda.md"))
	if strings.Contains(errOut, "created a new") {
		t.Errorf("ingest into an existing store says it created one:\n%s", errOut)
	}
}

// An unknown collection is an error listing the store's collections, from
// every command that reads one.
func TestUnknownCollection(t *testing.T) {
	ingestedStore(t)
	for _, tc := range []struct {
		name string
		run  func(context.Context, []string) error
		args []string
	}{
		{"search", runSearch, []string{"notice"}},
		{"ask", runAsk, []string{"--evidence", "what notice is needed?"}},
		{"docs", runDocs, nil},
		{"docs rm", runDocs, []string{"rm", "mutual-nda.md"}},
		{"mcp", runMCP, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := capture(t, tc.run, append(tc.args, "--collection", "dael-room")...)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			for _, want := range []string{`no collection "dael-room"`, "default (5 documents)", "--collection NAME"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not say %q", msg, want)
				}
			}
			if strings.Contains(msg, "load index") || strings.Contains(msg, "store:") {
				t.Errorf("error %q shows internals", msg)
			}
		})
	}
}

// --doc takes an id, a name, a prefix of either or a part of a name; an
// ambiguous one is an error listing the candidates. docs rm takes only an
// id or a name.
func TestDocReference(t *testing.T) {
	dir := ingestedStore(t)
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	infos, err := st.List(t.Context(), config.DefaultCollection)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	var msa store.DocInfo
	for _, in := range infos {
		if in.Name == "master-services-agreement.txt" {
			msa = in
		}
	}
	for _, tc := range []struct {
		ref, want, wantErr string
	}{
		{ref: "master-services-agreement.txt", want: msa.Name},
		{ref: msa.ID, want: msa.Name},
		{ref: msa.ID[:6], want: msa.Name},
		{ref: "Master", want: msa.Name},
		{ref: "services", want: msa.Name},
		{ref: "NDA", want: "mutual-nda.md"},
		{ref: "agreement", wantErr: `"agreement" matches 4 documents: `},
		{ref: "zzz", wantErr: `no document has the id, name, or part of a name "zzz"; its documents: distribution-agreement.txt, `},
	} {
		t.Run(tc.ref, func(t *testing.T) {
			out, _, err := capture(t, runSearch, "--doc", tc.ref, "--json", "-k", "2", "notice of termination")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				if strings.Contains(tc.wantErr, "matches") && !strings.Contains(err.Error(), msa.ID+" "+msa.Name) {
					t.Errorf("the ambiguity error does not list %s %s: %v", msa.ID, msa.Name, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, `"doc_name": "`+tc.want+`"`) || strings.Count(out, `"doc_name": "`) != strings.Count(out, `"doc_name": "`+tc.want+`"`) {
				t.Errorf("search --doc %q did not search only %s:\n%s", tc.ref, tc.want, out)
			}
		})
	}
	// Removing needs the id or the name: a fragment removes nothing.
	if _, _, err := capture(t, runDocs, "rm", "Master"); err == nil {
		t.Error(`docs rm "Master" succeeded`)
	}
	if out, _, _ := capture(t, runDocs); !strings.Contains(out, msa.Name) {
		t.Errorf("docs rm of a fragment removed %s", msa.Name)
	}
}

// search and ask answer an empty collection the same way.
func TestEmptyCollectionSearchAndAsk(t *testing.T) {
	dir := ingestedStore(t)
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateCollection(t.Context(), "empty"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	_, _, serr := capture(t, runSearch, "--collection", "empty", "notice")
	_, _, aerr := capture(t, runAsk, "--collection", "empty", "--evidence", "what notice is needed?")
	if serr == nil || aerr == nil || serr.Error() != aerr.Error() {
		t.Fatalf("empty collection: search %v; ask %v; want the same error", serr, aerr)
	}
	if !strings.Contains(serr.Error(), `collection "empty"`) || !strings.Contains(serr.Error(), "holds no documents") ||
		!strings.Contains(serr.Error(), "pakton ingest --collection empty PATH") {
		t.Errorf("empty collection: %v", serr)
	}
}
