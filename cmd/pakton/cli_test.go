package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/collection"
	"github.com/pakton/pakton/internal/config"
)

// capture runs a command with stdout and stderr captured.
func capture(t *testing.T, run func(context.Context, []string) error, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	stdout, stderr = &out, &errOut
	defer func() { stdout, stderr = os.Stdout, os.Stderr }()
	err := run(context.Background(), args)
	return out.String(), errOut.String(), err
}

// TestCLIEndToEnd runs ingest → docs → search (text and JSON) → docs rm →
// collections on the sample contracts, plus a file that fails, with the
// store named by the environment.
func TestCLIEndToEnd(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(config.EnvStore, filepath.Join(dir, "store"))
	t.Setenv(config.EnvCollection, "deal-room")
	src := filepath.Join(dir, "src")
	if err := writeExamples(src); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "broken.pdf"), []byte("%PDF-1.4\nnot really"), 0o644); err != nil {
		t.Fatal(err)
	}

	out, errOut, err := capture(t, runIngest, src)
	if err == nil || !strings.Contains(err.Error(), "1 of 6 files failed") {
		t.Errorf("ingest with a broken file: error %v, want \"1 of 6 files failed\"", err)
	}
	if !strings.Contains(out, "5 added") || !strings.Contains(out, "broken.pdf") {
		t.Errorf("ingest summary:\n%s", out)
	}
	if strings.Count(errOut, "\n") != 7 || !strings.Contains(errOut, "ingest [6/6]") || !strings.HasPrefix(errOut, "pakton: created a new, empty store at ") {
		t.Errorf("progress (not a terminal) should be a note on the new store, then one line per file:\n%s", errOut)
	}

	out, _, err = capture(t, runDocs)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"supply-agreement.docx", "docx", "5 documents in collection \"deal-room\""} {
		if !strings.Contains(out, want) {
			t.Errorf("docs lacks %q:\n%s", want, out)
		}
	}

	out, _, err = capture(t, runSearch, "Does a labour strike at the supplier's own plant count as force majeure under the supply agreement?", "-k", "2")
	if err != nil {
		t.Fatal(err)
	}
	// Force majeure runs through all of clause 15, so the review detectors
	// single out no passage and the words' best match stays first.
	for _, want := range []string{"searched Supply Agreement — Ferrand & Østergaard Components / Calloway Kitchen Appliances, 3 March 2025 only", "1. Supply Agreement — Ferrand & Østergaard Components / Calloway Kitchen Appliances, 3 March 2025 — 15 > 15.2\n   supply-agreement.docx, ", "a strike, lockout or other labour dispute"} {
		if !strings.Contains(out, want) {
			t.Errorf("search output lacks %q:\n%s", want, out)
		}
	}
	// Termination for convenience is one clause: the detectors put it first.
	out, _, err = capture(t, runSearch, "Can the customer terminate the master services agreement for convenience?", "-k", "2")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, " — ARTICLE XI > 11.2\n   master-services-agreement.txt, ") || !strings.Contains(out, "the review detectors' Termination for Convenience passage") {
		t.Errorf("provision question: want the detectors' clause 11.2 first:\n%s", out)
	}
	// The NDA has no termination for convenience: search says so.
	out, _, err = capture(t, runSearch, "--doc", "mutual-nda.md", "Can the customer terminate for convenience?", "-k", "1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "Not found: the review detectors find no Termination for Convenience provision in mutual-nda.md") {
		t.Errorf("not found:\n%s", out)
	}
	// --no-provisions: the words alone.
	out, _, err = capture(t, runSearch, "--no-provisions", "Can the customer terminate the master services agreement for convenience?", "-k", "2")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "review detectors") {
		t.Errorf("--no-provisions output:\n%s", out)
	}

	// --no-route: the same question searches every document.
	out, _, err = capture(t, runSearch, "--no-route", "--json", "-k", "8", "Does a labour strike at the supplier's own plant count as force majeure under the supply agreement?")
	if err != nil {
		t.Fatal(err)
	}
	var wide collection.Response
	if err := json.Unmarshal([]byte(out), &wide); err != nil {
		t.Fatalf("search --no-route --json: %v\n%s", err, out)
	}
	docsHit := map[string]bool{}
	for _, h := range wide.Hits {
		docsHit[h.DocName] = true
	}
	if len(wide.RoutedTo) != 0 || len(docsHit) < 2 {
		t.Errorf("search --no-route: routed to %v, hits from %v; want no routing and several documents", wide.RoutedTo, docsHit)
	}

	// --explain: the plan in text, and in the JSON; the hits do not change.
	out, _, err = capture(t, runSearch, "--explain", "-k", "2", "Does the agreement mention force majeure?")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Plan for", "routing (", "words searched:", "[1] "} {
		if !strings.Contains(out, want) {
			t.Errorf("search --explain: no %q in\n%s", want, out)
		}
	}
	plainOut, _, err := capture(t, runSearch, "--json", "-k", "4", "Does the agreement mention force majeure?")
	if err != nil {
		t.Fatal(err)
	}
	exOut, _, err := capture(t, runSearch, "--json", "--explain", "-k", "4", "Does the agreement mention force majeure?")
	if err != nil {
		t.Fatal(err)
	}
	var plain, explained collection.Response
	if err := json.Unmarshal([]byte(plainOut), &plain); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(exOut), &explained); err != nil {
		t.Fatal(err)
	}
	if explained.Explain == nil || len(explained.Explain.Hits) != len(explained.Hits) || !reflect.DeepEqual(plain.Hits, explained.Hits) {
		t.Errorf("search --json --explain: explain %v, hits changed %v", explained.Explain != nil, !reflect.DeepEqual(plain.Hits, explained.Hits))
	}
	// A switch turns its stage off, and the plan says so.
	out, _, err = capture(t, runSearch, "--explain", "--no-framing", "-k", "2", "Does the agreement mention force majeure?")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "switched off: framing") {
		t.Errorf("search --explain --no-framing:\n%s", out)
	}

	out, _, err = capture(t, runSearch, "--json", "--doc", "mutual-nda.md", "-k", "3", "how long does confidentiality survive")
	if err != nil {
		t.Fatal(err)
	}
	var res collection.Response
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("search --json: %v\n%s", err, out)
	}
	if len(res.Hits) != 3 {
		t.Fatalf("search --json: %d hits, want 3", len(res.Hits))
	}
	for _, h := range res.Hits {
		if h.DocName != "mutual-nda.md" || h.Span.End <= h.Span.Start || h.Text == "" || h.Path == "" {
			t.Errorf("hit %+v", h)
		}
	}
	if strings.Contains(out, `\u003e`) {
		t.Error("JSON escapes '>' in clause paths")
	}

	out, _, err = capture(t, runDocs, "rm", "mutual-nda.md", "nonexistent.txt")
	if err == nil || !strings.Contains(out, "removed") {
		t.Errorf("docs rm: out %q, err %v; want one removal and an error for the missing one", out, err)
	}
	out, _, _ = capture(t, runDocs)
	if strings.Contains(out, "mutual-nda.md") || !strings.Contains(out, "4 documents") {
		t.Errorf("docs after rm:\n%s", out)
	}
	if _, _, err := capture(t, runSearch, "--doc", "mutual-nda.md", "confidentiality"); err == nil {
		t.Error("search --doc of a removed document succeeded")
	}

	out, _, err = capture(t, runDocs, "collections")
	if err != nil || !strings.Contains(out, "deal-room") {
		t.Errorf("docs collections: %v\n%s", err, out)
	}
	if _, _, err := capture(t, runDocs, "rm-collection", "deal-room"); err == nil || !strings.Contains(err.Error(), "--yes") {
		t.Errorf("rm-collection without --yes: %v", err)
	}
	if _, _, err := capture(t, runDocs, "rm-collection", "--yes", "deal-room"); err != nil {
		t.Fatal(err)
	}
	out, _, _ = capture(t, runDocs, "collections")
	if strings.Contains(out, "deal-room") {
		t.Errorf("collection still listed after rm-collection:\n%s", out)
	}
}

func TestCLITree(t *testing.T) {
	dir := t.TempDir()
	if err := writeExamples(dir); err != nil {
		t.Fatal(err)
	}
	out, _, err := capture(t, runTree, filepath.Join(dir, "master-services-agreement.txt"), "--depth", "2")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "ARTICLE") || !strings.Contains(out, "11.2") {
		t.Errorf("tree output:\n%s", out)
	}
	out, _, err = capture(t, runTree, "--json", filepath.Join(dir, "supply-agreement.docx"))
	if err != nil {
		t.Fatal(err)
	}
	var tree struct {
		Format string `json:"format"`
		Nodes  []struct {
			Label string `json:"label"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(out), &tree); err != nil || tree.Format != "docx" || len(tree.Nodes) < 20 {
		t.Errorf("tree --json: %v, format %q, %d nodes", err, tree.Format, len(tree.Nodes))
	}
	out, _, err = capture(t, runTree, "--json", filepath.Join(dir, "master-services-agreement.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var graph struct {
		Nodes       []json.RawMessage `json:"nodes"`
		Definitions []struct {
			Term string `json:"term"`
			Node int    `json:"node"`
		} `json:"definitions"`
		References []struct {
			Text   string `json:"text"`
			Node   int    `json:"node"`
			Target *int   `json:"target"`
		} `json:"references"`
	}
	if err := json.Unmarshal([]byte(out), &graph); err != nil {
		t.Fatal(err)
	}
	terms := map[string]bool{}
	for _, d := range graph.Definitions {
		terms[d.Term] = true
	}
	if !terms["Affiliate"] || !terms["Provider"] || len(graph.References) < 20 {
		t.Errorf("tree --json: %d definitions %v, %d references", len(graph.Definitions), terms, len(graph.References))
	}
	for _, r := range graph.References {
		if r.Target != nil && (*r.Target <= 0 || *r.Target >= len(graph.Nodes)) {
			t.Errorf("reference %q: target %d out of %d nodes", r.Text, *r.Target, len(graph.Nodes))
		}
	}
	if _, _, err := capture(t, runTree, filepath.Join(dir, "missing.txt")); err == nil {
		t.Error("tree of a missing file succeeded")
	}
}

func TestCLIDemo(t *testing.T) {
	out, _, err := capture(t, runDemo)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "\n"); n > 80 {
		t.Errorf("demo prints %d lines, want at most 80", n)
	}
	for _, want := range []string{"5 added", "Q: ", "routed to Master Services Agreement — Quillfeather Data Services", "“"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

func TestParseArgsAndSize(t *testing.T) {
	fs, g := newFlags("x", "x")
	k := fs.Int("k", 1, "")
	pos, err := parseArgs(fs, []string{"what", "--store", "/s", "is", "-k", "3", "--", "-literal"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(pos, " ") != "what is -literal" || *k != 3 || g.store != "/s" {
		t.Errorf("parseArgs: %q k=%d store=%q", pos, *k, g.store)
	}
	for in, want := range map[string]int64{"1000": 1000, "200MB": 200e6, "50MiB": 50 << 20, "1.5GB": 1.5e9, "256m": 256 << 20} {
		got, err := parseSize(in)
		if err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "lots", "0"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) succeeded", in)
		}
	}
}
