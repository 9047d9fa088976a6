package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/search/index"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/store/storetest"
	"github.com/pakton/pakton/internal/store/weaviate"
	"github.com/pakton/pakton/internal/store/weaviate/wvtest"
)

// TestShardedServers: on one cluster, a collection indexed and published
// by one process (in three batches, so in several segments) is served by
// three servers that each hold a third of its segments whole (shard 0/3,
// 1/3 and 2/3) and by one that holds them all; every search through any
// shard server returns the hits, scores and routing of the one holding
// all. With a shard server gone, a search through another fails with an
// error naming it (never a partial answer, never a hang). Every wait has a
// deadline: the test's HTTP client (20 s), the shards' requests to each
// other (5 s) and the test's context. On the cluster suite
// (PAKTON_WEAVIATE) the servers share a real 3-node Weaviate cluster.
func TestShardedServers(t *testing.T) {
	const n = 3
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	mem := storetest.NewRemote()
	newRemote := func() store.Remote { return mem }
	if wvtest.OnCluster() {
		u := os.Getenv(wvtest.EnvStoreURL) + "&namespace=H" + fmt.Sprint(time.Now().UnixNano())
		newRemote = func() store.Remote {
			r, _, err := weaviate.Open(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			return r
		}
	}
	// The publisher: ingests in n batches, learns the associations.
	pub, err := store.OpenRemote(newRemote(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	if err := pub.CreateCollection(ctx, "deals"); err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	for batch := range n {
		dir := filepath.Join(src, fmt.Sprint(batch))
		os.MkdirAll(dir, 0o755)
		for i := range 3 {
			k := batch*3 + i
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("supplier-%d.txt", k)), []byte(contract(fmt.Sprintf("Vendor%d Ltd", k), fmt.Sprintf("%d years", k+1))), 0o644)
		}
		if _, err := ingest.Ingest(ctx, pub, "deals", []string{dir}, ingest.Options{}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ingest.Load(ctx, pub, "deals"); err != nil {
			t.Fatal(err)
		}
	}
	if rep, err := ingest.Maintain(ctx, pub, "deals", ingest.MaintainOptions{Learn: true, Policy: noMergePolicy}); err != nil || !rep.Learned || rep.Segments < n {
		t.Fatalf("maintain: %+v, %v (want %d segments or more)", rep, err, n)
	}

	// The servers: n shards, then one holding every segment. Their URLs
	// are known before they start, so each shard can be told the others'.
	var admin string
	type server struct {
		ts  *httptest.Server
		h   atomic.Pointer[http.Handler]
		srv *Server
	}
	start := func(s *server, shard *ShardConfig) {
		st, err := store.OpenRemote(newRemote(), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		keys, err := auth.OpenRecords(ctx, st.Shared())
		if err != nil {
			t.Fatal(err)
		}
		if admin == "" {
			if admin, _, err = keys.Create(ctx, "", "test admin", true); err != nil {
				t.Fatal(err)
			}
		}
		if shard != nil {
			shard.Key = admin
			shard.Timeout = 5 * time.Second
		}
		srv, err := New(ctx, Config{Store: st, Keys: keys, Shard: shard, Rate: -1, Logger: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		s.srv = srv
		h := srv.Handler()
		s.h.Store(&h)
		s.ts.Start()
		t.Cleanup(s.ts.Close)
	}
	sts := make([]*server, n+1)
	urls := make([]string, n)
	for i := range sts {
		s := &server{}
		s.ts = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*s.h.Load()).ServeHTTP(w, r) }))
		sts[i] = s
		if i < n {
			urls[i] = "http://" + s.ts.Listener.Addr().String()
		}
	}
	for k := range n {
		start(sts[k], &ShardConfig{K: k, N: n, Peers: urls})
	}
	whole := sts[n]
	start(whole, nil)

	client := &http.Client{Timeout: 20 * time.Second}
	post := func(s *server, q map[string]any) (int, map[string]any) {
		t.Helper()
		b, _ := json.Marshal(q)
		req, _ := http.NewRequestWithContext(ctx, "POST", s.ts.URL+"/api/v1/collections/deals/search", bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+admin)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("search through %s: %v", s.ts.URL, err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	search := func(s *server, q map[string]any) map[string]any {
		t.Helper()
		code, out := post(s, q)
		if code != http.StatusOK {
			t.Fatalf("%s: %d %v", s.ts.URL, code, out)
		}
		return out
	}
	questions := []map[string]any{
		{"query": "Can either party terminate the agreement?", "k": 5},
		{"query": "What is the liability cap of the Vendor3 agreement?", "k": 3},
		{"query": "assignment to an affiliate without consent", "k": 10, "no_route": true},
		{"query": "How long does the Vendor6 Ltd services agreement last?", "k": 4},
		{"query": "How long does the Vendor8 Ltd services agreement last?", "k": 2},
		{"query": "notice", "k": 2, "docs": []string{"supplier-1.txt", "supplier-5.txt", "supplier-7.txt"}},
		{"query": "services described in the schedule", "k": 9, "no_route": true},
	}
	for i, q := range questions {
		want := search(whole, q)
		if hits, _ := want["hits"].([]any); len(hits) == 0 {
			t.Fatalf("no hits for %q from the server holding every segment: %v", q["query"], want)
		}
		wj, _ := json.Marshal(want)
		for k := range n {
			got := search(sts[k], q)
			if gj, _ := json.Marshal(got); !bytes.Equal(gj, wj) {
				t.Fatalf("shard %d/%d answers %q:\n%s\nthe server holding every segment:\n%s", k, n, q["query"], gj, wj)
			}
		}
		if i == 0 {
			// Each shard holds its part of the segments whole, the rest
			// as stats files.
			for k := range n {
				sn, err := sts[k].srv.coll.Get(ctx, "deals")
				if err != nil {
					t.Fatal(err)
				}
				held, stats := 0, 0
				for _, seg := range sn.Index.Snapshot().Segments() {
					if seg.StatsOnly() {
						stats++
					} else {
						held++
					}
				}
				if held == 0 || stats == 0 {
					t.Fatalf("shard %d/%d holds %d segments whole and %d as stats files", k, n, held, stats)
				}
			}
		}
	}

	// --explain on a shard: the plan is explained, the hits are the same
	// (each hit's score makeup is known only to the shard that ranked it).
	q := map[string]any{"query": "What is the liability cap of the Vendor3 agreement?", "k": 3, "explain": true}
	want, _ := json.Marshal(search(whole, q)["hits"])
	for k := range n {
		out := search(sts[k], q)
		if got, _ := json.Marshal(out["hits"]); !bytes.Equal(got, want) || out["explain"] == nil {
			t.Fatalf("shard %d/%d explained: hits %s, explain %v; want hits %s and an explanation", k, n, got, out["explain"], want)
		}
	}

	// A shard server gone: the others say so, promptly.
	sts[n-1].ts.Close()
	for k := range n - 1 {
		code, out := post(sts[k], questions[0])
		msg := fmt.Sprint(out["error"])
		if code == http.StatusOK || !strings.Contains(msg, urls[n-1]) {
			t.Fatalf("shard %d/%d with shard %d gone: %d %v, want an error naming %s", k, n, n-1, code, out, urls[n-1])
		}
	}
}

// noMergePolicy keeps every segment (so the shards have several to split).
var noMergePolicy = index.MergePolicy{Factor: 1000, MinUnits: 1, MaxUnits: 1, MaxDeleted: 2}
