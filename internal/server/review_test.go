package server

import (
	"bytes"
	"context"
	"encoding/csv"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/jobs"
	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/llm/llmtest"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/reviewtest"
)

// startReviewOf starts a review and waits for its job.
func (e *env) startReviewOf(collection, key string, req map[string]any) reviewJSON {
	e.t.Helper()
	code, body := e.json("POST", "/api/v1/collections/"+collection+"/reviews", key, req)
	if code != http.StatusAccepted {
		e.t.Fatalf("start review: %d %s", code, body)
	}
	rv := decode[struct{ Review reviewJSON }](e.t, body).Review
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if j, err := e.srv.ReviewJobs().Wait(ctx, rv.Job); err != nil || j.State != jobs.Done {
		e.t.Fatalf("review job: %+v %v", j, err)
	}
	return rv
}

func TestReviewAPI(t *testing.T) {
	e := newEnv(t, nil)
	key := e.key("deal")
	e.ingest("deal", key, file{"a.txt", contract("Alpha Ltd", "three years")}, file{"b.txt", contract("Bravo Inc", "one year")},
		file{"c.txt", "MEMO\n\nThis is a note about lunch, governed by nothing at all.\n"})
	base := "/api/v1/collections/deal/reviews"

	// Validation: errors name the line and field, as 400s.
	bad := []struct {
		name string
		req  map[string]any
		want string
	}{
		{"yaml field", map[string]any{"playbook_yaml": "provisions:\n  - name: A\n    definiton: x\n"}, `line 3: unknown provision field \"definiton\"`},
		{"yaml syntax", map[string]any{"playbook_yaml": "provisions: [\n"}, "uploaded playbook"},
		{"unknown playbook", map[string]any{"playbook": "nope"}, `unknown playbook \"nope\"`},
		{"unknown provision", map[string]any{"playbook_yaml": string(reviewtest.PlaybookYAML), "provisions": []string{"Nope"}}, `no provision \"Nope\"`},
		{"unknown doc", map[string]any{"docs": []string{"nosuchdoc"}}, `document \"nosuchdoc\"`},
		{"unknown field", map[string]any{"playbok": "builtin"}, "unknown field"},
	}
	for _, c := range bad {
		code, body := e.json("POST", base, key, c.req)
		if code != http.StatusBadRequest || !strings.Contains(string(body), c.want) {
			t.Errorf("%s: %d %s, want 400 with %s", c.name, code, body, c.want)
		}
	}
	if code, body := e.json("POST", "/api/v1/collections/empty/reviews", e.admin, map[string]any{}); code != http.StatusNotFound {
		t.Errorf("missing collection: %d %s", code, body)
	}

	// An uploaded playbook, narrowed to two provisions.
	rv := e.startReviewOf("deal", key, map[string]any{"playbook_yaml": string(reviewtest.PlaybookYAML),
		"provisions": []string{"governing law", "Source Code Escrow"}, "title": "Q4 diligence"})
	if rv.Playbook != "small" || strings.Join(rv.Provisions, ",") != "Governing Law,Source Code Escrow" || rv.Source != "upload" {
		t.Errorf("review: %+v", rv)
	}

	// Review jobs run on their own workers but are jobs like the others.
	code, body := e.json("GET", "/api/v1/jobs/"+rv.Job, key, nil)
	if code != 200 || !strings.Contains(string(body), `"kind":"review"`) {
		t.Errorf("review job: %d %s", code, body)
	}
	code, body = e.json("GET", "/api/v1/collections/deal/jobs", key, nil)
	if code != 200 || !strings.Contains(string(body), rv.Job) || !strings.Contains(string(body), `"kind":"ingest"`) {
		t.Errorf("collection jobs: %d %s", code, body)
	}

	// Progress over SSE: at least one progress event, then done.
	code, body = e.do("GET", base+"/"+rv.ID+"/events", key, nil, "")
	evs := parseSSE(t, string(body))
	if code != 200 || len(evs) < 2 || evs[0].Event != "progress" || evs[len(evs)-1].Event != "done" {
		t.Fatalf("events: %d %s", code, body)
	}
	if p := decode[jobs.Progress](t, []byte(evs[0].Data)); p.Total != 3 || p.Done != 3 {
		t.Errorf("progress of a finished review: %+v", p)
	}

	// Results.
	code, body = e.json("GET", base+"/"+rv.ID, key, nil)
	got := decode[struct {
		Review    reviewJSON
		Table     review.Table
		Decisions review.Decisions
	}](t, body)
	if code != 200 || got.Review.State != jobs.Done || len(got.Table.Rows) != 3 || len(got.Table.Rows[0].Cells) != 2 || got.Decisions == nil {
		t.Fatalf("get review: %d %s", code, body)
	}
	row := got.Table.Rows[0]
	code, body = e.json("GET", base, key, nil)
	if code != 200 || !strings.Contains(string(body), rv.ID) {
		t.Errorf("list reviews: %d %s", code, body)
	}

	// Decisions: accepted, corrected, and invalid ones.
	decide := func(d map[string]any) (int, string) {
		code, body := e.json("POST", base+"/"+rv.ID+"/decisions", key, d)
		return code, string(body)
	}
	if code, body := decide(map[string]any{"doc_id": row.DocID, "provision": "Governing Law", "verdict": "accepted"}); code != 200 {
		t.Errorf("accept: %d %s", code, body)
	}
	if code, body := decide(map[string]any{"doc_id": row.DocID, "provision": "Source Code Escrow", "verdict": "corrected", "text": "Schedule 4 escrow", "value": "Yes", "note": "found by hand"}); code != 200 {
		t.Errorf("correct: %d %s", code, body)
	}
	for _, d := range []map[string]any{
		{"doc_id": row.DocID, "provision": "Governing Law", "verdict": "maybe"},
		{"doc_id": row.DocID, "provision": "Governing Law", "verdict": "corrected"},
		{"doc_id": row.DocID, "provision": "Nope", "verdict": "accepted"},
		{"doc_id": "nosuchdoc", "provision": "Governing Law", "verdict": "rejected"},
	} {
		if code, body := decide(d); code != 400 {
			t.Errorf("decision %v: %d %s, want 400", d, code, body)
		}
	}
	_, body = e.json("GET", base+"/"+rv.ID, key, nil)
	ds := decode[struct{ Decisions review.Decisions }](t, body).Decisions
	if len(ds) != 2 || ds.Find(row.DocID, "Source Code Escrow").Text != "Schedule 4 escrow" {
		t.Errorf("decisions kept: %+v", ds)
	}

	// Exports carry the decisions.
	for _, f := range []struct{ format, ctype, want string }{
		{"csv", "text/csv", "Schedule 4 escrow"},
		{"json", "application/json", "found by hand"},
		{"html", "text/html", "Schedule 4 escrow"},
		{"xlsx", "spreadsheetml", "PK"},
	} {
		req, _ := http.NewRequest("GET", e.ts.URL+base+"/"+rv.ID+"/export/"+f.format, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		buf.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Type"), f.ctype) ||
			!strings.Contains(resp.Header.Get("Content-Disposition"), "attachment") || !strings.Contains(buf.String(), f.want) {
			t.Errorf("export %s: %d %s %q", f.format, resp.StatusCode, resp.Header.Get("Content-Type"), buf.String()[:min(200, buf.Len())])
		}
		// Named after the review: its title and the day it was made.
		_, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition"))
		if want := "Q4 diligence " + rv.Created.UTC().Format("2006-01-02") + "." + f.format; err != nil || params["filename"] != want {
			t.Errorf("export %s: Content-Disposition %q (%v), want filename %q", f.format, resp.Header.Get("Content-Disposition"), err, want)
		}
		if f.format == "csv" {
			recs, err := csv.NewReader(&buf).ReadAll()
			if err != nil || len(recs) != 4 {
				t.Errorf("csv export: %d records, %v", len(recs), err)
			}
		}
	}
	if code, _ := e.do("GET", base+"/"+rv.ID+"/export/pdf", key, nil, ""); code != 400 {
		t.Errorf("export pdf: %d", code)
	}

	// A finished review is not resumed; one that stopped short is, and its
	// finished contracts are not reviewed again.
	if code, body := e.do("POST", base+"/"+rv.ID+"/resume", key, nil, ""); code != http.StatusConflict {
		t.Errorf("resume a finished review: %d %s", code, body)
	}
	dir := e.srv.reviewDir("deal", rv.ID)
	if rs := e.st.Shared(); rs != nil { // as if the job died before writing its table
		for _, kind := range []string{reviewSummaryKind("deal"), reviewTableKind("deal")} {
			if err := rs.DeleteRecord(t.Context(), kind, rv.ID); err != nil {
				t.Fatal(err)
			}
		}
	} else {
		for _, f := range []string{"summary.json", "table.json"} {
			if err := os.Remove(filepath.Join(dir, f)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// ... and before finishing one contract.
	if rs := e.st.Shared(); rs != nil {
		if err := rs.DeleteRecord(t.Context(), reviewRowKind("deal", rv.ID), got.Table.Rows[2].DocID); err != nil {
			t.Fatal(err)
		}
	} else if err := os.Remove(filepath.Join(dir, "rows", got.Table.Rows[2].DocID+".json")); err != nil {
		t.Fatal(err)
	}
	_, body = e.json("GET", base+"/"+rv.ID+"?partial=1", key, nil)
	stopped := decode[struct {
		Review  reviewJSON
		Partial *review.Table
		Table   *review.Table
	}](t, body)
	if stopped.Review.State != jobs.Failed {
		t.Errorf("a review whose job finished without a table is %s, want failed", stopped.Review.State)
	}
	if stopped.Table != nil || stopped.Partial == nil || len(stopped.Partial.Rows) != 2 || len(stopped.Partial.Provisions) != 2 {
		t.Errorf("partial table of a stopped review: %s", body)
	}
	code, body = e.do("POST", base+"/"+rv.ID+"/resume", key, nil, "")
	if code != http.StatusAccepted {
		t.Fatalf("resume: %d %s", code, body)
	}
	resumed := decode[struct{ Review reviewJSON }](t, body).Review
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if j, err := e.srv.ReviewJobs().Wait(ctx, resumed.Job); err != nil || j.State != jobs.Done {
		t.Fatalf("resumed job: %+v %v", j, err)
	}
	_, body = e.json("GET", base+"/"+rv.ID, key, nil)
	after := decode[struct {
		Review reviewJSON
		Table  review.Table
	}](t, body)
	if s := after.Review.Stats; s == nil || s.Reused != 2 || s.Reviewed != 1 || len(after.Table.Rows) != 3 {
		t.Errorf("resumed review: stats %+v, %d rows; want 2 reused, 1 reviewed", s, len(after.Table.Rows))
	}

	// Removing a decision, then the review.
	if code, body := e.do("DELETE", base+"/"+rv.ID+"/decisions?doc_id="+row.DocID+"&provision=Governing+Law", key, nil, ""); code != 200 || strings.Contains(string(body), "accepted") {
		t.Errorf("undecide: %d %s", code, body)
	}
	if code, _ := e.do("DELETE", base+"/"+rv.ID+"/decisions?doc_id="+row.DocID+"&provision=Governing+Law", key, nil, ""); code != 404 {
		t.Errorf("undecide twice: %d", code)
	}
	if code, _ := e.do("DELETE", base+"/"+rv.ID, key, nil, ""); code != 204 {
		t.Errorf("delete review: %d", code)
	}
	if code, _ := e.do("GET", base+"/"+rv.ID, key, nil, ""); code != 404 {
		t.Errorf("deleted review: %d", code)
	}

	// The built-in playbook by name; the playbooks route lists it.
	rv = e.startReviewOf("deal", key, map[string]any{"playbook": "builtin"})
	pb, _ := review.Builtin()
	if len(rv.Provisions) != len(pb.Provisions) {
		t.Errorf("built-in review has %d provisions, want %d", len(rv.Provisions), len(pb.Provisions))
	}
	code, body = e.json("GET", "/api/v1/playbooks", key, nil)
	if code != 200 || !strings.Contains(string(body), `"id":"builtin"`) || !strings.Contains(string(body), `"id":"merger"`) {
		t.Errorf("playbooks: %d %.200s", code, body)
	}
	// The merger-agreement playbook by name, kept by name for its job.
	rv = e.startReviewOf("deal", key, map[string]any{"playbook": "merger", "provisions": []string{"Type of Consideration", "Specific Performance"}})
	if strings.Join(rv.Provisions, ",") != "Type of Consideration,Specific Performance" || rv.Source != "merger" {
		t.Errorf("merger review: provisions %v, source %q", rv.Provisions, rv.Source)
	}
	_, body = e.json("GET", "/api/v1/collections/deal/reviews/"+rv.ID, key, nil)
	if got := decode[struct{ Table review.Table }](t, body).Table; got.Playbook != "pakton merger agreement" || len(got.Rows) == 0 {
		t.Errorf("merger review table: playbook %q, %d rows", got.Playbook, len(got.Rows))
	}
	if code, body := e.json("POST", "/api/v1/collections/deal/reviews", key, map[string]any{"playbook": "mergers"}); code != 400 || !strings.Contains(string(body), "merger") {
		t.Errorf("unknown playbook: %d %.200s", code, body)
	}
}

// TestReviewAPIModelPass: with a model configured, a review's cells come
// from the model pass (the scripted server); "offline": true skips it.
func TestReviewAPIModelPass(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Turn{Name: "not found", Times: -1,
		JSON: map[string]any{"found": false, "quotes": []any{}, "value": "Not found", "confidence": 0.1}})
	e := newEnv(t, func(c *Config) {
		c.Models = llm.Roles{Default: llm.Config{BaseURL: srv.BaseURL(), Model: "scripted", MaxRetries: -1}}
	})
	key := e.key("deal")
	e.ingest("deal", key, file{"a.txt", contract("Alpha Ltd", "three years")}, file{"b.txt", contract("Bravo Inc", "one year")})
	for _, offline := range []bool{false, true} {
		before := len(srv.Requests())
		rv := e.startReviewOf("deal", key, map[string]any{"playbook_yaml": string(reviewtest.PlaybookYAML),
			"provisions": []string{"Governing Law"}, "offline": offline})
		_, body := e.json("GET", "/api/v1/collections/deal/reviews/"+rv.ID, key, nil)
		got := decode[struct{ Table review.Table }](t, body).Table
		for _, row := range got.Rows {
			// Offline, the cell comes from the built-in Governing Law
			// detector (the small playbook shares the name); with the
			// model, from the model.
			if len(row.Cells) != 1 || (row.Cells[0].Method == review.MethodModel) == offline {
				t.Errorf("offline=%v %s: %+v", offline, row.DocName, row.Cells)
			}
		}
		asked := len(srv.Requests()) - before
		if (asked == 0) != offline || (rv.Model == "") != offline {
			t.Errorf("offline=%v: %d model requests, model %q", offline, asked, rv.Model)
		}
	}
}
