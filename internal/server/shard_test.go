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
// by one process (in two batches, so in several segments) is served by
// two servers that each hold half of its segments whole (shard 0/2 and
// 1/2) and by one that holds them all; every search through either shard
// server returns the hits, scores and routing of the one holding all. On
// the cluster suite (PAKTON_WEAVIATE) the three servers share a real
// 3-node Weaviate cluster.
func TestShardedServers(t *testing.T) {
	mem := storetest.NewRemote()
	newRemote := func() store.Remote { return mem }
	if wvtest.OnCluster() {
		u := os.Getenv(wvtest.EnvStoreURL) + "&namespace=H" + fmt.Sprint(time.Now().UnixNano())
		newRemote = func() store.Remote {
			r, _, err := weaviate.Open(context.Background(), u)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			return r
		}
	}
	ctx := context.Background()
	// The publisher: ingests in two batches, learns the associations.
	pub, err := store.OpenRemote(newRemote(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	if err := pub.CreateCollection(ctx, "deals"); err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	for batch := range 2 {
		dir := filepath.Join(src, fmt.Sprint(batch))
		os.MkdirAll(dir, 0o755)
		for i := range 4 {
			n := batch*4 + i
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("supplier-%d.txt", n)), []byte(contract(fmt.Sprintf("Vendor%d Ltd", n), fmt.Sprintf("%d years", n+1))), 0o644)
		}
		if _, err := ingest.Ingest(ctx, pub, "deals", []string{dir}, ingest.Options{}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ingest.Load(ctx, pub, "deals"); err != nil {
			t.Fatal(err)
		}
	}
	if rep, err := ingest.Maintain(ctx, pub, "deals", ingest.MaintainOptions{Learn: true, Policy: noMergePolicy}); err != nil || !rep.Learned || rep.Segments < 2 {
		t.Fatalf("maintain: %+v, %v", rep, err)
	}

	// The servers. Their URLs are known before they start, so each shard
	// can be told the others'.
	var admin string
	type server struct {
		ts *httptest.Server
		h  atomic.Pointer[http.Handler]
	}
	start := func(shard *ShardConfig) (*Server, *server) {
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
		}
		srv, err := New(ctx, Config{Store: st, Keys: keys, Shard: shard, Rate: -1, Logger: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		return srv, nil
	}
	var sts [3]*server
	var srvs [3]*Server
	for i := range sts {
		s := &server{}
		s.ts = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*s.h.Load()).ServeHTTP(w, r) }))
		sts[i] = s
	}
	urls := []string{"http://" + sts[0].ts.Listener.Addr().String(), "http://" + sts[1].ts.Listener.Addr().String()}
	for i, cfg := range []*ShardConfig{{K: 0, N: 2, Peers: urls}, {K: 1, N: 2, Peers: urls}, nil} {
		srv, _ := start(cfg)
		srvs[i] = srv
		h := srv.Handler()
		sts[i].h.Store(&h)
		sts[i].ts.Start()
		t.Cleanup(sts[i].ts.Close)
	}
	search := func(s *server, q map[string]any) map[string]any {
		t.Helper()
		b, _ := json.Marshal(q)
		req, _ := http.NewRequest("POST", s.ts.URL+"/api/v1/collections/deals/search", bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+admin)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %v", s.ts.URL, resp.StatusCode, out)
		}
		return out
	}
	questions := []map[string]any{
		{"query": "Can either party terminate the agreement?", "k": 5},
		{"query": "What is the liability cap of the Vendor3 agreement?", "k": 3},
		{"query": "assignment to an affiliate without consent", "k": 10, "no_route": true},
		{"query": "How long does the Vendor6 Ltd services agreement last?", "k": 4},
		{"query": "notice", "k": 2, "docs": []string{"supplier-1.txt", "supplier-5.txt"}},
	}
	for i, q := range questions {
		want := search(sts[2], q)
		wj, _ := json.Marshal(want)
		for k := range 2 {
			got := search(sts[k], q)
			if gj, _ := json.Marshal(got); !bytes.Equal(gj, wj) {
				t.Fatalf("shard %d answers %q:\n%s\nthe server holding every segment:\n%s", k, q["query"], gj, wj)
			}
		}
		if i == 0 {
			// Each shard holds half of the segments whole, the rest as
			// stats files.
			for k := range 2 {
				sn, err := srvs[k].coll.Get(ctx, "deals")
				if err != nil {
					t.Fatal(err)
				}
				whole, stats := 0, 0
				for _, seg := range sn.Index.Snapshot().Segments() {
					if seg.StatsOnly() {
						stats++
					} else {
						whole++
					}
				}
				if whole == 0 || stats == 0 {
					t.Fatalf("shard %d holds %d segments whole and %d as stats files", k, whole, stats)
				}
			}
		}

	}
}

// noMergePolicy keeps every segment (so the shards have several to split).
var noMergePolicy = index.MergePolicy{Factor: 1000, MinUnits: 1, MaxUnits: 1, MaxDeleted: 2}
