package weaviate_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/store/weaviate"
	"github.com/pakton/pakton/internal/store/weaviate/wvtest"
)

func requireCluster(t *testing.T) *wvtest.Cluster {
	t.Helper()
	if os.Getenv("PAKTON_WEAVIATE") != "1" {
		t.Skip("set PAKTON_WEAVIATE=1 to run the Weaviate cluster suite (starts 3 weaviate-server nodes on loopback)")
	}
	return wvtest.Require(t, 3)
}

// contract generates a small agreement; seed varies its words and numbers.
func contract(seed int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "MASTER SUPPLY AGREEMENT NO. %d\n\nThis Agreement is made between Supplier%d GmbH and Buyer%d Ltd.\n\n", seed, seed, seed*13)
	fmt.Fprintf(&b, "ARTICLE 1 DEFINITIONS\n\n1.1 \"Goods\" means the goods listed in Annex %d.\n\n", seed%7+1)
	for a := 2; a <= 6; a++ {
		fmt.Fprintf(&b, "ARTICLE %d TERMS PART %d\n\n", a, a)
		for c := 1; c <= 3; c++ {
			fmt.Fprintf(&b, "%d.%d The Supplier shall deliver lot %d-%d-%d within %d days of an order, and liability for late delivery is capped at %d percent of the price.\n\n",
				a, c, seed, a, c, (seed+a+c)%60+1, (seed*a+c)%90+5)
		}
	}
	fmt.Fprintf(&b, "ARTICLE 7 GOVERNING LAW\n\n7.1 This Agreement is governed by the laws of Zentralland%d.\n", seed)
	return b.String()
}

func writeContracts(t *testing.T, dir string, from, to int) (paths []string, sums map[string]string) {
	t.Helper()
	sums = map[string]string{}
	for i := from; i < to; i++ {
		name := fmt.Sprintf("supply-%03d.txt", i)
		text := contract(i)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		h := sha256.Sum256([]byte(text))
		sums[name] = fmt.Sprintf("%x", h)
	}
	return paths, sums
}

// TestWeaviateClusterFaults ingests into a 3-node cluster with replication
// 3, kills -9 a follower and then the Raft leader in the middle of an ingest
// while readers search, and checks that reads never failed, the writes went
// through, and every document is stored exactly once with its exact text.
func TestWeaviateClusterFaults(t *testing.T) {
	c := requireCluster(t)
	ctx := context.Background()
	url := c.URL("replicas=3&timeout=10s&retry=3m&local=" + t.TempDir())
	st, err := weaviate.OpenStore(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const coll = "faults"
	if err := st.CreateCollection(t.Context(), coll); err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	all := map[string]string{}
	ingestRange := func(from, to int, during func(done int)) {
		t.Helper()
		paths, sums := writeContracts(t, src, from, to)
		for k, v := range sums {
			all[k] = v
		}
		opt := ingest.Options{Workers: 1}
		var once sync.Once
		opt.Progress = func(p ingest.Progress) {
			if during != nil && p.Done >= (to-from)/3 {
				once.Do(func() { during(p.Done) })
			}
		}
		sum, err := ingest.Ingest(ctx, st, coll, paths, opt)
		if err != nil {
			t.Fatalf("ingest %d-%d: %v", from, to, err)
		}
		if err := sum.Err(); err != nil {
			t.Fatalf("ingest %d-%d: %v", from, to, err)
		}
	}

	// 1. A healthy cluster: ingest and search.
	ingestRange(0, 30, nil)
	ix, err := ingest.LoadIndex(ctx, st, coll)
	if err != nil {
		t.Fatal(err)
	}
	if ix.Docs() != 30 {
		t.Fatalf("index holds %d documents, want 30", ix.Docs())
	}
	res, err := ix.Search(t.Context(), search.Query{Text: "governing law Zentralland17", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 {
		t.Fatal("no hits")
	}
	if d, err := st.Info(t.Context(), coll, res.Hits[0].DocID); err != nil || d.Name != "supply-017.txt" {
		t.Fatalf("top hit %v (%v), want supply-017.txt", d.Name, err)
	}

	// Readers run through every fault below; none of their reads may fail.
	var reads, readErrs atomic.Int64
	var firstErr atomic.Value
	stop := make(chan struct{})
	var rwg sync.WaitGroup
	reader := func(seed uint64) {
		defer rwg.Done()
		rd, err := weaviate.OpenStore(ctx, url) // another client, as another process would be
		if err != nil {
			readErrs.Add(1)
			firstErr.CompareAndSwap(nil, err)
			return
		}
		defer rd.Close()
		r := rand.New(rand.NewPCG(seed, 1))
		for {
			select {
			case <-stop:
				return
			default:
			}
			err := func() error {
				infos, err := rd.List(t.Context(), coll)
				if err != nil {
					return err
				}
				in := infos[r.IntN(len(infos))]
				rec, err := rd.Document(t.Context(), coll, in.ID)
				if err != nil {
					return err
				}
				if got := fmt.Sprintf("%x", sha256.Sum256([]byte(rec.Doc.Text))); got != all[in.Name] && all[in.Name] != "" {
					return fmt.Errorf("%s: text differs", in.Name)
				}
				res, err := ix.Search(t.Context(), search.Query{Text: "liability capped late delivery", K: 8})
				if err != nil {
					return err
				}
				hits := res.Hits
				_, err = docread.Passages(t.Context(), rd, coll, hits[:min(3, len(hits))])
				return err
			}()
			reads.Add(1)
			if err != nil {
				readErrs.Add(1)
				firstErr.CompareAndSwap(nil, err)
				t.Logf("read failed: %v", err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	rwg.Add(2)
	go reader(1)
	go reader(2)

	// 2. kill -9 a follower in the middle of an ingest.
	leader := c.Leader(1)
	follower := 1
	for follower == leader {
		follower++
	}
	t.Logf("leader node%d; killing follower node%d mid-ingest", leader, follower)
	ingestRange(30, 60, func(int) { c.Kill(follower) })
	if err := c.Restart(follower); err != nil {
		t.Fatal(err)
	}

	// 3. kill -9 the Raft leader in the middle of an ingest; then change the
	// schema (a new collection) while the cluster elects a new leader.
	leader = c.Leader(follower)
	if leader == 0 {
		leader = c.Leader(1)
	}
	if leader == 0 {
		t.Fatal("no Raft leader found")
	}
	t.Logf("killing leader node%d mid-ingest", leader)
	ingestRange(60, 90, func(int) { c.Kill(leader) })
	if err := st.CreateCollection(t.Context(), "after-leader-kill"); err != nil {
		t.Fatalf("create a collection after the leader was killed: %v", err)
	}
	if err := c.Restart(leader); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitHealthy(3, 1, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	close(stop)
	rwg.Wait()
	t.Logf("%d reads during the faults, %d failed", reads.Load(), readErrs.Load())
	if n := readErrs.Load(); n > 0 {
		t.Errorf("%d of %d reads failed during the faults; first: %v", n, reads.Load(), firstErr.Load())
	}

	// 4. Every document exactly once, with its exact text, through a fresh
	// client; the index built from the cluster holds all of them.
	fresh, err := weaviate.OpenStore(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	infos, err := fresh.List(t.Context(), coll)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, in := range infos {
		if seen[in.Name] {
			t.Errorf("%s stored twice", in.Name)
		}
		seen[in.Name] = true
		rec, err := fresh.Get(t.Context(), coll, in.ID)
		if err != nil {
			t.Errorf("%s: %v", in.Name, err)
			continue
		}
		if got := fmt.Sprintf("%x", sha256.Sum256([]byte(rec.Doc.Text))); got != all[in.Name] {
			t.Errorf("%s: text checksum %s, want %s", in.Name, got, all[in.Name])
		}
	}
	if len(infos) != len(all) {
		t.Errorf("%d documents stored, want %d", len(infos), len(all))
	}
	cols, err := fresh.Collections(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, ci := range cols {
		if ci.Name == coll && ci.Docs != len(all) {
			t.Errorf("collection count %d, want %d", ci.Docs, len(all))
		}
	}
	ix2, err := ingest.LoadIndex(ctx, fresh, coll)
	if err != nil {
		t.Fatal(err)
	}
	if ix2.Docs() != len(all) {
		t.Errorf("index holds %d documents, want %d", ix2.Docs(), len(all))
	}
}

// TestWeaviateStore runs the store's contract on the cluster: isolation of
// collections, replace, delete, and the generation.
func TestWeaviateStore(t *testing.T) {
	c := requireCluster(t)
	st, err := weaviate.OpenStore(context.Background(), c.URL("replicas=2&local="+t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	src := t.TempDir()
	paths, _ := writeContracts(t, src, 0, 3)
	for _, coll := range []string{"alpha", "beta.two"} {
		if err := st.CreateCollection(t.Context(), coll); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ingest.Ingest(context.Background(), st, "alpha", paths, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if l, _ := st.List(t.Context(), "beta.two"); len(l) != 0 {
		t.Fatalf("isolation: beta.two lists %d documents", len(l))
	}
	l, err := st.List(t.Context(), "alpha")
	if err != nil || len(l) != 3 {
		t.Fatalf("List = %d, %v", len(l), err)
	}
	g1, _ := st.Generation(t.Context(), "alpha")
	rec, err := st.Get(t.Context(), "alpha", l[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	rec.Doc.Text += "\nAMENDED."
	if err := st.Put(t.Context(), "alpha", rec); err != nil {
		t.Fatal(err)
	}
	g2, _ := st.Generation(t.Context(), "alpha")
	if g1 == g2 {
		t.Fatal("generation unchanged by a put")
	}
	if got, err := st.Document(t.Context(), "alpha", l[0].ID); err != nil || !strings.HasSuffix(got.Doc.Text, "AMENDED.") {
		t.Fatalf("replaced document: %v", err)
	}
	if err := st.Delete(t.Context(), "alpha", l[1].ID); err != nil {
		t.Fatal(err)
	}
	if l, _ := st.List(t.Context(), "alpha"); len(l) != 2 {
		t.Fatalf("after delete: %d documents", len(l))
	}
	if err := st.DeleteCollection(t.Context(), "alpha"); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateCollection(t.Context(), "alpha"); err != nil {
		t.Fatal(err)
	}
	if l, _ := st.List(t.Context(), "alpha"); len(l) != 0 {
		t.Fatalf("a re-created collection shows %d old documents", len(l))
	}
	if _, err := st.Generation(t.Context(), "nope"); err == nil {
		t.Fatal("missing collection has a generation")
	}
	_ = store.DefaultCollection
}

// TestWeaviateUnreachable: a URL where nothing listens fails fast, naming
// the address.
func TestWeaviateUnreachable(t *testing.T) {
	start := time.Now()
	_, err := weaviate.OpenStore(context.Background(), "weaviate://127.0.0.1:1?retry=2s&local="+t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("took %s", d)
	}
}
