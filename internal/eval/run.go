package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/learnq"
	"github.com/pakton/pakton/internal/parallel"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/search/index"
	"github.com/pakton/pakton/internal/store"
)

// Method builds the retrieval units of one document for a named retrieval
// method ("naive", "rcts", "pakton").
type Method interface {
	Name() string
	Units(doc *document.Document) (index.DocInput, error)
}

// Options configure a LegalBench-RAG run.
type Options struct {
	CorpusDir string   // the benchmark's corpus/ directory
	Benches   []string // benchmark files
	Scope     string   // "corpus" (default) or "document"
	// Scopes set the scope of some benchmarks (by name: the file's base
	// name without extension), overriding Scope: ContractNLI's questions
	// name no contract, so each is searched in its own document.
	Scopes map[string]string
	Method Method
	K      int // deepest cut-off searched (default 64)
	// Replicate indexes every corpus document this many times (under new
	// names) to measure how speed grows with corpus size. Scores of a
	// replicated run are not comparable: copies compete with the originals.
	Replicate int
	// Stages switch the search's tuned stages off, for ablation runs (the
	// provision stage is Provisions).
	search.Stages
	// Unnamed are questions that name no contract; each is searched over the
	// whole corpus and the report says how many routing narrowed.
	Unnamed []string
	// Progress, when set, receives (stage, done, total) as work advances.
	Progress func(stage string, done, total int)
	// Hits, when set, receives every query's hits as one JSON line
	// (benchmark, query, then each hit's document, span, view, provision
	// and score), so two runs can be compared hit by hit: a refactoring
	// that claims to change nothing is checked with it.
	Hits io.Writer
	// Explain adds each query's plan as it ran (search.Explain) to its line
	// in Hits: what a query became, stage by stage.
	Explain bool
	// Store, when set, holds the corpus: it is put into Collection (default
	// "legalbench-<method>") and the index loaded back from the store, so
	// the run measures retrieval on what the store (a directory or a
	// Weaviate cluster) returns. Benchmarks over different corpora get a
	// collection each ("<Collection>-<corpus>").
	Store      *store.Store
	Collection string
	// Provisions, when set, puts the review detectors' passage first for
	// questions that ask about a playbook provision, as pakton search does
	// by default (see ProvisionSource for which detectors to measure with).
	Provisions *ProvisionSource
	// Learn, when set, adds to each question the words learnt from
	// labelled questions like it (learnq), in folds by document.
	Learn *LearnSource

	learnOnly bool // LearnModel: learn, search nothing
}

// BenchResult is the JSON form of one benchmark's scores (percentages).
type BenchResult struct {
	Queries int    `json:"queries"`
	Scope   string `json:"scope,omitempty"` // corpus or document
	// QueryMsP50 and QueryMsP99 are the benchmark's query latencies, in
	// process.
	QueryMsP50 float64            `json:"query_ms_p50,omitempty"`
	QueryMsP99 float64            `json:"query_ms_p99,omitempty"`
	Precision  map[string]float64 `json:"precision"`
	Recall     map[string]float64 `json:"recall"`
	DRM        map[string]float64 `json:"drm"`
	Chars      map[string]float64 `json:"chars"`
	Routed     float64            `json:"routed_correctly,omitempty"` // corpus scope: share of queries routed to a ground-truth document
	// RoutedAlone is the share of queries narrowed to their ground-truth
	// document alone (corpus scope).
	RoutedAlone float64 `json:"routed_alone,omitempty"`
	// FirstElsewhere is the share of queries whose first hit comes from a
	// document holding no ground truth: a question about one contract
	// answered first from another.
	FirstElsewhere float64 `json:"first_hit_elsewhere"`
	// Quotes is the share of queries whose first hit covers at least half of
	// a ground-truth span: what an offline evidence report, which quotes the
	// first hit first, gets right.
	Quotes float64 `json:"quotes_answer_at_1"`
	// ShortTop1 and MidTokenTop1 are the shares of queries whose first hit is
	// under 40 characters, or starts inside a word or clause number (".7 Non-…").
	ShortTop1    float64 `json:"short_top1"`
	MidTokenTop1 float64 `json:"mid_token_top1"`
	// ProvisionTop1 is the share of queries whose first hit is a passage
	// the review detectors found (runs with Options.Provisions).
	ProvisionTop1 float64 `json:"provision_top1,omitempty"`
}

// UnnamedResult is how routing treated questions that name no contract.
type UnnamedResult struct {
	Questions int      `json:"questions"`
	Routed    float64  `json:"routed"` // percentage narrowed to some documents
	Examples  []string `json:"routed_examples,omitempty"`
	// Unknown are the questions read as calling a contract by a name none
	// goes by (search.RouteUnknown): nothing is searched for them.
	Unknown []string `json:"unknown,omitempty"`
}

// Report is the JSON report of a run.
type Report struct {
	Method        string                  `json:"method"`
	Scope         string                  `json:"scope"`
	Documents     int                     `json:"documents"`
	Units         int                     `json:"units"`
	Benchmarks    map[string]*BenchResult `json:"benchmarks"`
	All           AllResult               `json:"all"`
	IngestSeconds float64                 `json:"ingest_seconds"`
	QueryMsP50    float64                 `json:"query_ms_p50"`
	QueryMsP99    float64                 `json:"query_ms_p99"`
	Unnamed       *UnnamedResult          `json:"unnamed,omitempty"`
	Provisions    string                  `json:"provisions,omitempty"` // which detectors put provision passages first, if any
	Learned       string                  `json:"learned,omitempty"`    // which labelled questions words were learnt from, if any
}

// AllResult is the mean over benchmark files.
type AllResult struct {
	Precision map[string]float64 `json:"precision"`
	Recall    map[string]float64 `json:"recall"`
}

// Run indexes the corpus with the method and scores every benchmark query.
func Run(ctx context.Context, opt Options) (*Report, error) {
	if opt.Scope == "" {
		opt.Scope = "corpus"
	}
	for _, sc := range append([]string{opt.Scope}, slices.Collect(maps.Values(opt.Scopes))...) {
		if sc != "corpus" && sc != "document" {
			return nil, fmt.Errorf("eval: scope %q: want corpus or document", sc)
		}
	}
	if opt.K <= 0 {
		opt.K = Ks[len(Ks)-1]
	}
	if opt.Method == nil {
		return nil, fmt.Errorf("eval: no method")
	}
	benches, dirsOf, err := loadBenches(opt.Benches)
	if err != nil {
		return nil, err
	}
	rep := &Report{Method: opt.Method.Name(), Scope: opt.Scope, Benchmarks: map[string]*BenchResult{}}
	if opt.Provisions != nil {
		rep.Provisions = opt.Provisions.Mode
		if opt.Provisions.HoldOutQuestions {
			rep.Provisions += "; questions matched with their provision's playbook questions held out"
		}
	}
	if opt.Learn != nil {
		folds := opt.Learn.Folds
		if folds <= 0 {
			folds = 4
		}
		rep.Learned = fmt.Sprintf("the questions of %d benchmark files, %d folds by document", len(opt.Learn.From), folds)
		if opt.Learn.Model != nil {
			rep.Learned = "the shipped model (learnt from the four development sets' questions, so optimistic on them)"
		}
	}
	r := &benchRun{opt: opt, rep: rep, benches: len(benches), allP: map[int]float64{}, allR: map[int]float64{}}
	for _, b := range benches {
		r.totalQ += len(b.Tests)
	}
	// Each benchmark is searched in an index of its own corpus (LegalBench-RAG
	// gives every benchmark its corpus: CUAD's 468 contracts, ContractNLI's
	// 150 NDAs); benchmarks over the same corpus share one index. Indexing
	// them together would let one corpus's units change the other's
	// corpus-learned statistics (query expansion), so a change to how CUAD
	// contracts are cut would move ContractNLI scores.
	groups := corpusGroups(dirsOf)
	var first *benchCorpus // the first benchmark's corpus: the unnamed questions are routed in it
	for _, group := range groups {
		subdirs := map[string]bool{}
		for _, bi := range group {
			for d := range dirsOf[bi] {
				subdirs[d] = true
			}
		}
		c, err := r.openCorpus(ctx, subdirs, len(groups) > 1)
		if err != nil {
			return nil, err
		}
		if first == nil {
			first = c
		}
		if opt.learnOnly {
			continue
		}
		for _, bi := range group {
			b := benches[bi]
			if rep.Benchmarks[b.Name], err = r.runBench(ctx, b, c); err != nil {
				return nil, err
			}
		}
	}
	if len(opt.Unnamed) > 0 {
		if rep.Unnamed, err = routeUnnamed(ctx, first, opt.Unnamed); err != nil {
			return nil, err
		}
	}
	rep.All = AllResult{Precision: kmap(r.allP, 100), Recall: kmap(r.allR, 100)}
	rep.QueryMsP50, rep.QueryMsP99 = percentiles(r.lat)
	if opt.Learn != nil && opt.Learn.Write != nil && opt.Learn.Model == nil {
		if err := opt.Learn.Write(learnq.Train(r.learnt)); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// scopeOf is the scope a benchmark is searched with.
func (opt Options) scopeOf(bench string) string {
	if sc, ok := opt.Scopes[bench]; ok {
		return sc
	}
	return opt.Scope
}

// percentiles returns the median and 99th percentile of lat in
// milliseconds (lat is sorted in place).
func percentiles(lat []time.Duration) (p50, p99 float64) {
	if len(lat) == 0 {
		return 0, 0
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return ms(lat[len(lat)/2]), ms(lat[min(len(lat)-1, len(lat)*99/100)])
}

// loadBenches reads the benchmark files and, for each, the corpus
// subdirectories its snippets come from.
func loadBenches(paths []string) ([]*Benchmark, []map[string]bool, error) {
	var benches []*Benchmark
	var dirsOf []map[string]bool
	for _, p := range paths {
		b, err := LoadBenchmark(p)
		if err != nil {
			return nil, nil, err
		}
		benches = append(benches, b)
		dirs := map[string]bool{}
		for _, t := range b.Tests {
			for _, s := range t.Snippets {
				if i := strings.IndexByte(s.FilePath, '/'); i > 0 {
					dirs[s.FilePath[:i]] = true
				} else {
					dirs[""] = true
				}
			}
		}
		dirsOf = append(dirsOf, dirs)
	}
	if len(benches) == 0 {
		return nil, nil, fmt.Errorf("eval: no benchmark files given")
	}
	return benches, dirsOf, nil
}

// benchRun is one run of Run: its options, its report and what it sums
// over the benchmarks.
type benchRun struct {
	opt          Options
	rep          *Report
	benches      int // how many benchmarks the averages are over
	lat          []time.Duration
	done, totalQ int // queries searched, and in all
	allP, allR   map[int]float64
	learnt       []learnq.Example // every corpus's labelled questions (Learn.Write)
}

// benchCorpus is the index of one corpus and how its document ids map to
// corpus paths.
type benchCorpus struct {
	ix    *search.Index
	texts map[string]string // document id → text
	rel   func(id string) string
	idOf  func(path string) string
	ff    *foldFinder   // the provision finder, when opt.Provisions is set
	lf    *learnedFolds // the words learnt from labelled questions, when opt.Learn is set
}

// openCorpus indexes the files of the corpus subdirectories (in memory, or
// through opt.Store) and prepares the provision finder; several says the
// run has more than one corpus (each then gets a collection of its own).
func (r *benchRun) openCorpus(ctx context.Context, subdirs map[string]bool, several bool) (*benchCorpus, error) {
	opt := r.opt
	var files []string
	for sd := range subdirs {
		dir := filepath.Join(opt.CorpusDir, sd)
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("eval: corpus: %w", err)
		}
		for _, e := range ents {
			if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".txt") {
				files = append(files, filepath.ToSlash(filepath.Join(sd, e.Name())))
			}
		}
	}
	sort.Strings(files)
	if opt.Replicate > 1 {
		base := files
		for c := 2; c <= opt.Replicate; c++ {
			for _, f := range base {
				files = append(files, f+copySuffix+strconv.Itoa(c))
			}
		}
	}

	start := time.Now()
	c := &benchCorpus{}
	var paths map[string]string
	var err error
	if opt.Store != nil {
		gopt := opt
		if several {
			if gopt.Collection == "" {
				gopt.Collection = "legalbench-" + opt.Method.Name()
			}
			gopt.Collection += "-" + strings.Join(slices.Sorted(maps.Keys(subdirs)), "-")
		}
		c.ix, c.texts, paths, err = storeIndex(ctx, gopt, files)
	} else {
		c.ix, c.texts, err = buildIndex(ctx, opt, files)
	}
	if err != nil {
		return nil, err
	}
	c.rel = func(id string) string {
		if p, ok := paths[id]; ok {
			return p
		}
		return id
	}
	c.idOf = func(path string) string {
		if paths != nil {
			return store.DocID(path)
		}
		return path
	}
	if opt.Provisions != nil {
		if c.ff, err = opt.Provisions.finder(c.texts, c.rel); err != nil {
			return nil, err
		}
	}
	if opt.Learn != nil {
		var ex []learnq.Example
		if c.lf, ex, err = learnFolds(ctx, opt, c.ix, files, c.idOf); err != nil {
			return nil, err
		}
		if opt.Learn.Write != nil {
			r.learnt = append(r.learnt, ex...)
		}
	}
	r.rep.Documents += c.ix.Docs()
	r.rep.Units += c.ix.Units()
	r.rep.IngestSeconds += time.Since(start).Seconds()
	return c, nil
}

// benchTally counts what a benchmark's queries' first hits and routes did.
type benchTally struct {
	routedOK, routedAlone, elsewhere, quotes, short, midTok, provTop int
}

// runBench searches every query of b in corpus c and scores the hits.
func (r *benchRun) runBench(ctx context.Context, b *Benchmark, c *benchCorpus) (*BenchResult, error) {
	opt := r.opt
	scope := opt.scopeOf(b.Name)
	var blat []time.Duration
	sum := newScores()
	var tl benchTally
	for _, t := range b.Tests {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		q := search.Query{Text: t.Query, K: opt.K, Stages: opt.Stages, Explain: opt.Explain && opt.Hits != nil}
		if scope == "document" {
			q.Docs = []string{c.idOf(t.Snippets[0].FilePath)}
			q.NoRoute = true
		}
		t0 := time.Now()
		if c.lf != nil {
			p, err := c.ix.Plan(ctx, q)
			if err != nil {
				return nil, fmt.Errorf("eval: query %q: %w", t.Query, err)
			}
			q.Learned = c.lf.forDoc(t.Snippets[0].FilePath).Expand(p.Words)
		}
		var qm search.Models
		if c.ff != nil {
			qm.Provisions = c.ff.forCategory(t.Category)
		}
		res, err := c.ix.SearchWith(ctx, qm, q, nil)
		if err != nil {
			return nil, fmt.Errorf("eval: query %q: %w", t.Query, err)
		}
		r.lat = append(r.lat, time.Since(t0))
		blat = append(blat, time.Since(t0))
		if opt.Hits != nil {
			if err := writeHits(opt.Hits, b.Name, t.Query, res, c.rel); err != nil {
				return nil, err
			}
		}
		ret := make([]Snippet, len(res.Hits))
		for i, h := range res.Hits {
			ret[i] = Snippet{FilePath: c.rel(h.DocID), Span: h.Span}
		}
		sc, err := ScoreQuery(t.Snippets, ret)
		if err != nil {
			return nil, fmt.Errorf("eval: method %s, query %q: %w", opt.Method.Name(), t.Query, err)
		}
		tl.add(t, res, c)
		for _, k := range Ks {
			sum.Precision[k] += sc.Precision[k]
			sum.Recall[k] += sc.Recall[k]
			sum.DRM[k] += sc.DRM[k]
			sum.Chars[k] += sc.Chars[k]
		}
		r.done++
		if opt.Progress != nil && r.done%50 == 0 {
			opt.Progress("query", r.done, r.totalQ)
		}
	}
	n := float64(len(b.Tests))
	br := &BenchResult{Queries: len(b.Tests), Quotes: 100 * float64(tl.quotes) / n,
		ShortTop1: 100 * float64(tl.short) / n, MidTokenTop1: 100 * float64(tl.midTok) / n, ProvisionTop1: 100 * float64(tl.provTop) / n,
		FirstElsewhere: 100 * float64(tl.elsewhere) / n}
	for _, k := range Ks {
		sum.Precision[k] /= n
		sum.Recall[k] /= n
		sum.DRM[k] /= n
		sum.Chars[k] /= n
		r.allP[k] += sum.Precision[k] / float64(r.benches)
		r.allR[k] += sum.Recall[k] / float64(r.benches)
	}
	br.Precision, br.Recall, br.DRM, br.Chars = kmap(sum.Precision, 100), kmap(sum.Recall, 100), kmap(sum.DRM, 100), kmap(sum.Chars, 1)
	br.Scope = scope
	br.QueryMsP50, br.QueryMsP99 = percentiles(blat)
	if scope == "corpus" {
		br.Routed = 100 * float64(tl.routedOK) / n
		br.RoutedAlone = 100 * float64(tl.routedAlone) / n
	}
	return br, nil
}

// add counts query t's result.
func (tl *benchTally) add(t Test, res search.Result, c *benchCorpus) {
	if len(res.Hits) > 0 {
		h := res.Hits[0]
		h.DocID = c.rel(h.DocID)
		if !slices.ContainsFunc(t.Snippets, func(s Snippet) bool { return s.FilePath == h.DocID }) {
			tl.elsewhere++
		}
		if coversHalf(h, t.Snippets) {
			tl.quotes++
		}
		if h.Span.Len() < 40 {
			tl.short++
		}
		if h.View == index.ViewProvision {
			tl.provTop++
		}
		if startsMidToken(c.texts[c.idOf(h.DocID)], h.Span.Start) {
			tl.midTok++
		}
	}
	if len(res.RoutedTo) > 0 && slices.ContainsFunc(t.Snippets, func(s Snippet) bool { return slices.Contains(res.RoutedTo, c.idOf(s.FilePath)) }) {
		tl.routedOK++
		if len(res.RoutedTo) == 1 {
			tl.routedAlone++
		}
	}
}

// routeUnnamed routes the questions that name no contract in corpus c and
// reports how many routing narrowed, with those as examples.
func routeUnnamed(ctx context.Context, c *benchCorpus, questions []string) (*UnnamedResult, error) {
	u := &UnnamedResult{Questions: len(questions)}
	routed := 0
	for _, q := range questions {
		r, err := c.ix.Route(ctx, search.Query{Text: q})
		if err != nil {
			return nil, fmt.Errorf("eval: routing %q: %w", q, err)
		}
		if r.Decision.Narrowed() {
			routed++
			var to []string
			for _, id := range r.Docs {
				to = append(to, c.rel(id))
			}
			u.Examples = append(u.Examples, q+" → "+strings.Join(to, ", "))
		}
		if r.Decision == search.RouteUnknown {
			u.Unknown = append(u.Unknown, q)
		}
	}
	u.Routed = 100 * float64(routed) / float64(len(questions))
	return u, nil
}

// corpusGroups groups benchmarks (by index) that share a corpus
// subdirectory, in order of each group's first benchmark.
func corpusGroups(dirsOf []map[string]bool) [][]int {
	group := make([]int, len(dirsOf)) // benchmark → group, by union of shared dirs
	for i := range group {
		group[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for group[i] != i {
			i = group[i]
		}
		return i
	}
	for i := range dirsOf {
		for j := range i {
			for d := range dirsOf[i] {
				if dirsOf[j][d] {
					if a, b := find(i), find(j); a != b {
						group[max(a, b)] = min(a, b)
					}
					break
				}
			}
		}
	}
	var out [][]int
	at := map[int]int{}
	for i := range dirsOf {
		r := find(i)
		k, ok := at[r]
		if !ok {
			k = len(out)
			at[r] = k
			out = append(out, nil)
		}
		out[k] = append(out[k], i)
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// buildIndex reads and chunks the corpus files in parallel and indexes them
// in file order.
func buildIndex(ctx context.Context, opt Options, files []string) (*search.Index, map[string]string, error) {
	type item struct {
		seg  *index.Doc
		text string
		err  error
	}
	out := make([]item, len(files))
	var mu sync.Mutex
	done := 0
	parallel.Each(ctx, len(files), runtime.GOMAXPROCS(0), func(i int) {
		in, text, err := loadDoc(opt, files[i])
		if err == nil {
			out[i].seg = index.AnalyzeDoc(in)
			out[i].text = text
		}
		out[i].err = err
		mu.Lock()
		done++
		if opt.Progress != nil && done%25 == 0 {
			opt.Progress("ingest", done, len(files))
		}
		mu.Unlock()
	})
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	ix := search.NewIndex()
	texts := make(map[string]string, len(files))
	for i, it := range out {
		if it.err != nil {
			return nil, nil, it.err
		}
		if err := ix.AddSegment(it.seg); err != nil {
			return nil, nil, err
		}
		texts[it.seg.ID] = it.text
		out[i] = item{}
	}
	return ix, texts, nil
}

// copySuffix marks the name of a replicated document.
const copySuffix = "#copy"

// loadDoc reads one corpus file as is: benchmark spans are code-point offsets
// into the exact file contents, so no normalization may change them.
func loadDoc(opt Options, rel string) (index.DocInput, string, error) {
	path := rel
	if i := strings.Index(path, copySuffix); i >= 0 {
		path = path[:i]
	}
	data, err := os.ReadFile(filepath.Join(opt.CorpusDir, filepath.FromSlash(path)))
	if err != nil {
		return index.DocInput{}, "", fmt.Errorf("eval: %w", err)
	}
	if !utf8.Valid(data) {
		return index.DocInput{}, "", fmt.Errorf("eval: %s is not valid UTF-8", rel)
	}
	doc := &document.Document{ID: rel, Name: filepath.Base(rel), Format: "text", Text: string(data)}
	in, err := opt.Method.Units(doc)
	if err != nil {
		return in, "", fmt.Errorf("eval: %s: %w", rel, err)
	}
	in.ID, in.Name = rel, doc.Name
	return in, doc.Text, nil
}

// coversHalf reports whether a hit covers at least half of one ground-truth
// span.
func coversHalf(h search.Hit, truth []Snippet) bool {
	for _, s := range truth {
		if s.FilePath == h.DocID && s.Span.Len() > 0 && 2*s.Span.Intersect(h.Span).Len() >= s.Span.Len() {
			return true
		}
	}
	return false
}

// startsMidToken reports whether code point start of text lies inside a word
// or a clause number: after a letter or digit, or on a period or digit that
// continues a number ("2|.7", "1|2.3").
func startsMidToken(text string, start int) bool {
	if start <= 0 {
		return false
	}
	var prev, cur rune
	i := 0
	for _, r := range text {
		if i == start-1 {
			prev = r
		}
		if i == start {
			cur = r
			break
		}
		i++
	}
	alnum := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	if alnum(prev) && alnum(cur) {
		return true
	}
	return unicode.IsDigit(prev) && cur == '.' || prev == '.' && unicode.IsDigit(cur) && start >= 2 && digitAt(text, start-2)
}

// digitAt reports whether code point i of text is a digit.
func digitAt(text string, i int) bool {
	j := 0
	for _, r := range text {
		if j == i {
			return unicode.IsDigit(r)
		}
		j++
	}
	return false
}

// WriteTable prints a human-readable summary of a report.
func WriteTable(w io.Writer, r *Report) {
	fmt.Fprintf(w, "method %s, scope %s: %d documents, %d units, ingest %.1fs, query p50 %.2fms p99 %.2fms\n",
		r.Method, r.Scope, r.Documents, r.Units, r.IngestSeconds, r.QueryMsP50, r.QueryMsP99)
	if r.Provisions != "" {
		fmt.Fprintf(w, "provision passages first: %s detectors\n", r.Provisions)
	}
	if r.Learned != "" {
		fmt.Fprintf(w, "words learnt from labelled questions: %s\n", r.Learned)
	}
	for _, n := range slices.Sorted(maps.Keys(r.Benchmarks)) {
		b := r.Benchmarks[n]
		fmt.Fprintf(w, "%s (%d queries)", n, b.Queries)
		if b.Scope == "corpus" || b.Scope == "" && r.Scope == "corpus" {
			fmt.Fprintf(w, ", routed to a ground-truth document: %.1f%% (to it alone %.1f%%)", b.Routed, b.RoutedAlone)
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "  %-10s", "k")
		for _, k := range Ks {
			fmt.Fprintf(w, "%9d", k)
		}
		fmt.Fprintln(w)
		row := func(name string, m map[string]float64, format string) {
			fmt.Fprintf(w, "  %-10s", name)
			for _, k := range Ks {
				fmt.Fprintf(w, format, m[fmt.Sprint(k)])
			}
			fmt.Fprintln(w)
		}
		row("recall", b.Recall, "%9.2f")
		row("precision", b.Precision, "%9.2f")
		row("drm %", b.DRM, "%9.2f")
		row("chars", b.Chars, "%9.0f")
		fmt.Fprintf(w, "  first hit: quotes the answer %.1f%%, from another document %.1f%%, under 40 characters %.1f%%, starts inside a word or number %.1f%%",
			b.Quotes, b.FirstElsewhere, b.ShortTop1, b.MidTokenTop1)
		if r.Provisions != "" {
			fmt.Fprintf(w, ", found by the review detectors %.1f%%", b.ProvisionTop1)
		}
		fmt.Fprintln(w)
	}
	if u := r.Unnamed; u != nil {
		fmt.Fprintf(w, "questions naming no contract: %d, narrowed by routing %.1f%%\n", u.Questions, u.Routed)
		for _, e := range u.Examples {
			fmt.Fprintf(w, "  routed: %s\n", e)
		}
		for _, q := range u.Unknown {
			fmt.Fprintf(w, "  unknown name, nothing searched: %s\n", q)
		}
	}
	if len(r.Benchmarks) > 1 {
		fmt.Fprintf(w, "ALL\n")
		fmt.Fprintf(w, "  %-10s", "recall")
		for _, k := range Ks {
			fmt.Fprintf(w, "%9.2f", r.All.Recall[fmt.Sprint(k)])
		}
		fmt.Fprintf(w, "\n  %-10s", "precision")
		for _, k := range Ks {
			fmt.Fprintf(w, "%9.2f", r.All.Precision[fmt.Sprint(k)])
		}
		fmt.Fprintln(w)
	}
}

// hitLine is one query's hits in a Hits dump, each hit's document named by
// its corpus path.
type hitLine struct {
	Bench    string          `json:"bench"`
	Query    string          `json:"query"`
	RoutedTo []string        `json:"routed_to,omitempty"`
	Hits     []search.Hit    `json:"hits"`
	Explain  *search.Explain `json:"explain,omitempty"`
}

// writeHits writes one query's hits to w as a JSON line.
func writeHits(w io.Writer, bench, query string, res search.Result, rel func(string) string) error {
	l := hitLine{Bench: bench, Query: query, Hits: slices.Clone(res.Hits), Explain: res.Explain}
	for _, d := range res.RoutedTo {
		l.RoutedTo = append(l.RoutedTo, rel(d))
	}
	for i := range l.Hits {
		l.Hits[i].DocID = rel(l.Hits[i].DocID)
	}
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("eval: writing hits: %w", err)
	}
	return nil
}

// subsetNames are the display names of LegalBench-RAG's subsets, in the
// order PAKTON's Table 2 lists them, by the prefix of a benchmark's name.
var subsetNames = []struct{ prefix, name string }{
	{"privacy_qa", "PrivacyQA"}, {"contractnli", "ContractNLI"}, {"maud", "MAUD"}, {"cuad", "CUAD"},
}

// subsetOrder returns the report's benchmarks in Table 2's order (other
// benchmarks after, by name) with their display names.
func subsetOrder(r *Report) (names, display []string) {
	rest := slices.Sorted(maps.Keys(r.Benchmarks))
	for _, s := range subsetNames {
		for _, n := range slices.Clone(rest) {
			if strings.HasPrefix(n, s.prefix) {
				names, display = append(names, n), append(display, s.name+strings.TrimPrefix(n, s.prefix))
				rest = slices.DeleteFunc(rest, func(x string) bool { return x == n })
			}
		}
	}
	return append(names, rest...), append(display, rest...)
}

// WriteTable2 prints a report in the layout of PAKTON's Table 2: per
// benchmark and over all of them (the mean of the benchmarks), precision
// and recall at every k, then the characters returned and the share of
// snippets from documents holding no answer (DRM) at every k, the scope and
// the query latency in process.
func WriteTable2(w io.Writer, r *Report) {
	names, display := subsetOrder(r)
	width := 12
	for _, d := range display {
		width = max(width, len(d)+1)
	}
	head := func(title string) {
		fmt.Fprintf(w, "%-*s", width, title)
		for _, k := range Ks {
			fmt.Fprintf(w, "%8s", fmt.Sprint("@", k))
		}
	}
	mean := func(get func(b *BenchResult) map[string]float64, k int) float64 {
		s := 0.0
		for _, n := range names {
			s += get(r.Benchmarks[n])[fmt.Sprint(k)]
		}
		return s / float64(len(names))
	}
	block := func(title, format string, get func(b *BenchResult) map[string]float64, all map[string]float64, tail func(b *BenchResult) string, allTail string) {
		head(title)
		fmt.Fprintln(w)
		for i, n := range names {
			b := r.Benchmarks[n]
			fmt.Fprintf(w, "%-*s", width, display[i])
			for _, k := range Ks {
				fmt.Fprintf(w, format, get(b)[fmt.Sprint(k)])
			}
			if tail != nil {
				fmt.Fprint(w, tail(b))
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%-*s", width, "all")
		for _, k := range Ks {
			v := mean(get, k)
			if all != nil {
				v = all[fmt.Sprint(k)]
			}
			fmt.Fprintf(w, format, v)
		}
		fmt.Fprint(w, allTail)
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "LegalBench-RAG, in the layout of PAKTON's Table 2 (percentages; all: the mean of the benchmarks)")
	block("precision", "%8.2f", func(b *BenchResult) map[string]float64 { return b.Precision }, r.All.Precision, nil, "")
	block("recall", "%8.2f", func(b *BenchResult) map[string]float64 { return b.Recall }, r.All.Recall, nil, "")
	block("chars", "%8.0f", func(b *BenchResult) map[string]float64 { return b.Chars }, nil, nil, "")
	block("DRM", "%8.2f", func(b *BenchResult) map[string]float64 { return b.DRM }, nil, func(b *BenchResult) string {
		return fmt.Sprintf("   %-8s p50 %6.2f ms  p99 %7.2f ms", b.Scope, b.QueryMsP50, b.QueryMsP99)
	}, fmt.Sprintf("   %-8s p50 %6.2f ms  p99 %7.2f ms", "", r.QueryMsP50, r.QueryMsP99))
}
