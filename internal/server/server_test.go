package server

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/collection"
	"github.com/pakton/pakton/internal/jobs"
	"github.com/pakton/pakton/internal/report"
)

// TestRoutes walks every route's happy path in the order a user meets them.
func TestRoutes(t *testing.T) {
	e := newEnv(t, nil)
	a := e.admin

	code, body := e.json("POST", "/api/v1/collections", a, map[string]string{"name": "deals"})
	if code != http.StatusCreated {
		t.Fatalf("create collection: %d %s", code, body)
	}
	if code, body = e.json("POST", "/api/v1/collections", a, map[string]string{"name": "deals"}); code != http.StatusConflict {
		t.Fatalf("create twice: %d %s", code, body)
	}
	if code, _ = e.json("POST", "/api/v1/collections", a, map[string]string{"name": "Bad/Name"}); code != http.StatusBadRequest {
		t.Fatalf("bad name: %d", code)
	}

	j := e.ingest("deals", a, file{"alpha.txt", contract("Alpha Ltd", "three years")}, file{"beta.txt", contract("Beta GmbH", "five years")})
	if j.State != jobs.Done || j.Progress.Done != 2 || j.Progress.Total != 2 || len(j.Results) != 2 {
		t.Fatalf("job: %+v", j)
	}
	for _, r := range j.Results {
		if r.Status != "added" || r.ID == "" {
			t.Errorf("result %+v", r)
		}
	}
	if _, err := os.Stat(filepath.Join(e.st.Dir(), "uploads")); err == nil {
		ents, _ := os.ReadDir(filepath.Join(e.st.Dir(), "uploads"))
		if len(ents) != 0 {
			t.Errorf("uploads left after the job: %v", ents)
		}
	}

	code, body = e.json("GET", "/api/v1/collections", a, nil)
	cols := decode[struct{ Collections []collectionJSON }](t, body)
	found := false
	for _, c := range cols.Collections {
		found = found || c.Name == "deals" && c.Docs == 2
	}
	if code != 200 || !found {
		t.Fatalf("list collections: %d %s", code, body)
	}

	code, body = e.json("GET", "/api/v1/collections/deals/documents", a, nil)
	docs := decode[struct{ Documents []docJSON }](t, body)
	if code != 200 || len(docs.Documents) != 2 || docs.Documents[0].Name != "alpha.txt" {
		t.Fatalf("list documents: %d %s", code, body)
	}
	if strings.Contains(string(body), e.st.Dir()) {
		t.Errorf("document list shows a server path: %s", body)
	}
	id := docs.Documents[0].ID

	code, body = e.json("GET", "/api/v1/collections/deals/documents/"+id, a, nil)
	doc := decode[documentJSON](t, body)
	if code != 200 || doc.Text == nil || !strings.Contains(*doc.Text, "Alpha Ltd") || doc.Tree == nil || len(doc.Tree.Nodes) < 5 {
		t.Fatalf("get document: %d %.300s", code, body)
	}
	// Paragraph starts for the reader: increasing, inside the text, and
	// every clause that starts a line starts one.
	if len(doc.Paragraphs) < 5 {
		t.Errorf("get document: %d paragraphs", len(doc.Paragraphs))
	}
	runes := []rune(*doc.Text)
	for i, p := range doc.Paragraphs {
		if p < 0 || p >= len(runes) || i > 0 && p <= doc.Paragraphs[i-1] {
			t.Fatalf("paragraph starts out of order or outside the text: %v", doc.Paragraphs)
		}
	}
	for _, n := range doc.Tree.Nodes[1:] {
		if n.Span.Start > 0 && runes[n.Span.Start-1] == '\n' && !slices.Contains(doc.Paragraphs, n.Span.Start) {
			t.Errorf("clause %q starts a line but no paragraph", n.Label)
		}
	}
	code, body = e.json("GET", "/api/v1/collections/deals/documents/"+id+"?text=0", a, nil)
	if doc := decode[documentJSON](t, body); code != 200 || doc.Text != nil || doc.Tree == nil {
		t.Fatalf("get document without text: %d %.300s", code, body)
	}
	if code, _ = e.json("GET", "/api/v1/collections/deals/documents/nosuchdoc", a, nil); code != 404 {
		t.Fatalf("missing document: %d", code)
	}

	code, body = e.json("POST", "/api/v1/collections/deals/search", a, map[string]any{"query": "assignment without consent", "k": 3})
	res := decode[collection.Response](t, body)
	if code != 200 || len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Text, "assign") || res.Hits[0].Path == "" {
		t.Fatalf("search: %d %s", code, body)
	}
	for _, h := range res.Hits {
		if h.Span.End <= h.Span.Start {
			t.Errorf("hit span %v", h.Span)
		}
	}
	code, body = e.json("POST", "/api/v1/collections/deals/search", a, map[string]any{"query": "liability cap", "docs": []string{"beta.txt"}})
	res = decode[collection.Response](t, body)
	if code != 200 || len(res.Hits) == 0 {
		t.Fatalf("search in one document: %d %s", code, body)
	}
	for _, h := range res.Hits {
		if h.DocName != "beta.txt" {
			t.Errorf("hit outside the selected document: %+v", h)
		}
	}
	// "explain": the plan as it ran, the same hits; a switch shows off.
	code, body = e.json("POST", "/api/v1/collections/deals/search", a, map[string]any{"query": "liability cap", "docs": []string{"beta.txt"}, "explain": true, "no_headings": true})
	ex := decode[collection.Response](t, body)
	if code != 200 || ex.Explain == nil || len(ex.Explain.Hits) != len(ex.Hits) || len(ex.Hits) != len(res.Hits) || ex.Hits[0].Span != res.Hits[0].Span {
		t.Fatalf("search with explain: %d %.400s", code, body)
	}
	for _, st := range ex.Explain.Stages {
		if st.Switch == "NoHeadings" && st.On {
			t.Errorf("no_headings: the headings stage still on")
		}
	}
	// A question naming a contract is routed (routed_to); no_route searches both.
	code, body = e.json("POST", "/api/v1/collections/deals/search", a, map[string]any{"query": "In the Beta GmbH agreement, is liability capped?", "k": 10})
	res = decode[collection.Response](t, body)
	if code != 200 || len(res.RoutedTo) != 1 || res.RoutedTo[0].Name != "beta.txt" {
		t.Fatalf("routed search: %d %s", code, body)
	}
	code, body = e.json("POST", "/api/v1/collections/deals/search", a, map[string]any{"query": "In the Beta GmbH agreement, is liability capped?", "k": 10, "no_route": true})
	res = decode[collection.Response](t, body)
	both := map[string]bool{}
	for _, h := range res.Hits {
		both[h.DocName] = true
	}
	if code != 200 || len(res.RoutedTo) != 0 || len(both) != 2 {
		t.Fatalf("no_route search: %d routed %v, hits from %v", code, res.RoutedTo, both)
	}
	if code, _ = e.json("POST", "/api/v1/collections/deals/search", a, map[string]any{"query": "x", "docs": []string{"nope.txt"}}); code != 404 {
		t.Errorf("search with unknown doc: %d", code)
	}
	if code, _ = e.json("POST", "/api/v1/collections/deals/search", a, map[string]any{"query": ""}); code != 400 {
		t.Errorf("empty query: %d", code)
	}
	if code, _ = e.json("POST", "/api/v1/collections/deals/search", a, map[string]any{"query": "x", "k": 1000}); code != 400 {
		t.Errorf("k too large: %d", code)
	}

	// Ask in evidence mode: a stream of progress, sources, then the report.
	code, body = e.json("POST", "/api/v1/collections/deals/ask", a, map[string]any{"question": "Can the Supplier assign the agreement?"})
	if code != 200 {
		t.Fatalf("ask: %d %s", code, body)
	}
	events := parseSSE(t, string(body))
	var kinds []string
	var rid string
	var sources int
	for _, ev := range events {
		kinds = append(kinds, ev.Event)
		switch ev.Event {
		case "source":
			src := decode[report.Source](t, []byte(ev.Data))
			if src.Quote == "" || src.DocID == "" {
				t.Errorf("source %s", ev.Data)
			}
			sources++
		case "report":
			r := decode[struct {
				ID     string
				Report report.Report
			}](t, []byte(ev.Data))
			if r.ID == "" || r.Report.Mode != report.ModeEvidence || len(r.Report.Sources) != sources {
				t.Errorf("report event: %.400s", ev.Data)
			}
			rid = r.ID
		case "error":
			t.Errorf("error event: %s", ev.Data)
		}
	}
	if len(kinds) < 3 || kinds[0] != "progress" || kinds[len(kinds)-1] != "report" || sources == 0 {
		t.Fatalf("ask events %v", kinds)
	}

	code, body = e.json("GET", "/api/v1/collections/deals/reports", a, nil)
	reps := decode[struct{ Reports []reportSummary }](t, body)
	if code != 200 || len(reps.Reports) != 1 || reps.Reports[0].ID != rid {
		t.Fatalf("list reports: %d %s", code, body)
	}
	code, body = e.json("GET", "/api/v1/collections/deals/reports/"+rid, a, nil)
	if code != 200 || !strings.Contains(string(body), `"mode":"evidence"`) {
		t.Fatalf("get report: %d %.300s", code, body)
	}
	if code, _ = e.json("GET", "/api/v1/collections/deals/reports/zzz", a, nil); code != 404 {
		t.Errorf("missing report: %d", code)
	}

	code, body = e.json("GET", "/api/v1/collections/deals/jobs", a, nil)
	if js := decode[struct{ Jobs []jobs.Job }](t, body); code != 200 || len(js.Jobs) != 1 || js.Jobs[0].ID != j.ID {
		t.Fatalf("list jobs: %d %s", code, body)
	}
	code, body = e.json("GET", "/api/v1/jobs/"+j.ID, a, nil)
	if code != 200 || strings.Contains(string(body), "params") {
		t.Fatalf("get job: %d %s", code, body)
	}
	code, body = e.json("POST", "/api/v1/jobs/"+j.ID+"/cancel", a, nil)
	if code != http.StatusAccepted || !strings.Contains(string(body), `"state":"done"`) {
		t.Fatalf("cancel finished job: %d %s", code, body)
	}

	if code, _ = e.json("DELETE", "/api/v1/collections/deals/documents/"+id, a, nil); code != http.StatusNoContent {
		t.Fatalf("delete document: %d", code)
	}
	if code, _ = e.json("DELETE", "/api/v1/collections/deals/documents/"+id, a, nil); code != 404 {
		t.Fatalf("delete document twice: %d", code)
	}
	// The index cache notices the deletion.
	_, body = e.json("POST", "/api/v1/collections/deals/search", a, map[string]any{"query": "Alpha Ltd supplier"})
	if strings.Contains(string(body), `"doc_name":"alpha.txt"`) {
		t.Errorf("search still finds a deleted document: %.300s", body)
	}
	if code, _ = e.json("DELETE", "/api/v1/collections/deals", a, nil); code != http.StatusNoContent {
		t.Fatalf("delete collection: %d", code)
	}
	for _, p := range []string{"/api/v1/collections/deals/documents", "/api/v1/collections/deals/reports"} {
		if code, _ = e.json("GET", p, a, nil); code != 404 {
			t.Errorf("GET %s after delete: %d", p, code)
		}
	}
	if code, _ = e.json("DELETE", "/api/v1/collections/deals", a, nil); code != 404 {
		t.Fatalf("delete collection twice: %d", code)
	}

	code, body = e.json("GET", "/healthz", "", nil)
	if code != 200 {
		t.Errorf("healthz %d %s", code, body)
	}
	code, body = e.json("GET", "/readyz", "", nil)
	if code != 200 {
		t.Errorf("readyz %d %s", code, body)
	}
}

// TestReadyz: a closed store is not ready.
func TestReadyz(t *testing.T) {
	e := newEnv(t, nil)
	e.st.Close()
	if code, _ := e.json("GET", "/readyz", "", nil); code != http.StatusServiceUnavailable {
		t.Fatalf("readyz with a closed store: %d", code)
	}
	if code, _ := e.json("GET", "/healthz", "", nil); code != 200 {
		t.Fatalf("healthz: %d", code)
	}
}

// TestAccessLog: one line per request with the route pattern and
// collection, and never the key, the query text or document names.
func TestAccessLog(t *testing.T) {
	e := newEnv(t, nil)
	k := e.key("secretive")
	e.ingest("secretive", k, file{"confidential-merger.txt", contract("Zebra Holdings", "two years")})
	e.json("POST", "/api/v1/collections/secretive/search", k, map[string]any{"query": "zanzibar indemnity question"})
	e.json("GET", "/api/v1/collections/secretive/documents/"+"abc?x=zanzibar", k, nil)
	logs := e.logs()
	for _, secret := range []string{k, e.admin, "zanzibar", "Zebra", "confidential-merger"} {
		if strings.Contains(logs, secret) {
			t.Errorf("log holds %q:\n%s", secret, logs)
		}
	}
	var line map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs), "\n") {
		if strings.Contains(l, "search") {
			json.Unmarshal([]byte(l), &line)
		}
	}
	if line["route"] != "POST /api/v1/collections/{c}/search" || line["collection"] != "secretive" || line["status"] != float64(200) {
		t.Errorf("access log line %v", line)
	}
}

// TestCORS: closed by default; one configured origin is allowed.
func TestCORS(t *testing.T) {
	for _, tc := range []struct {
		name, allow, origin string
		wantCode            int
		wantHeader          string
	}{
		{"closed", "", "https://evil.example", http.StatusForbidden, ""},
		{"same origin", "", "", 200, ""},
		{"other origin", "https://app.example", "https://evil.example", http.StatusForbidden, ""},
		{"allowed origin", "https://app.example", "https://app.example", 200, "https://app.example"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, func(c *Config) { c.CORSOrigin = tc.allow })
			for _, method := range []string{"GET", "OPTIONS"} {
				req, _ := http.NewRequest(method, e.ts.URL+"/api/v1/collections", nil)
				req.Header.Set("Authorization", "Bearer "+e.admin)
				if tc.origin != "" {
					req.Header.Set("Origin", tc.origin)
				}
				if method == "OPTIONS" {
					if tc.origin == "" {
						continue
					}
					req.Header.Set("Access-Control-Request-Method", "POST")
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				want := tc.wantCode
				if method == "OPTIONS" && want == 200 {
					want = http.StatusNoContent
				}
				if resp.StatusCode != want || resp.Header.Get("Access-Control-Allow-Origin") != tc.wantHeader {
					t.Errorf("%s: status %d (want %d), allow-origin %q (want %q)", method, resp.StatusCode, want,
						resp.Header.Get("Access-Control-Allow-Origin"), tc.wantHeader)
				}
			}
		})
	}
}

// TestNoAuth: allowed only on loopback, and then only for loopback Host
// headers.
func TestNoAuth(t *testing.T) {
	e := newEnv(t, nil)
	if _, err := New(t.Context(), Config{Store: e.st, NoAuth: true, Addr: "0.0.0.0:8080"}); err == nil {
		t.Fatal("no-auth on 0.0.0.0 accepted")
	}
	if _, err := New(t.Context(), Config{Store: e.st, Addr: "127.0.0.1:0"}); err == nil {
		t.Fatal("no keyring and no no-auth accepted")
	}
	e.srv.Close() // one server per store
	s, err := New(t.Context(), Config{Store: e.st, NoAuth: true, Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct {
		host string
		want int
	}{{"127.0.0.1:8080", 200}, {"localhost:8080", 200}, {"[::1]:8080", 200}, {"evil.example:8080", 403}} {
		req, _ := http.NewRequest("GET", "/api/v1/collections", nil)
		req.Host = tc.host
		rec := newRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("Host %s: %d, want %d", tc.host, rec.Code, tc.want)
		}
	}
}
