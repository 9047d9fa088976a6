package review

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/names"

	"github.com/pakton/pakton/internal/atomicfile"
	"github.com/pakton/pakton/internal/parallel"
	"github.com/pakton/pakton/internal/review/answer"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
	"github.com/pakton/pakton/internal/store"
)

// A review run is resumable. Run keeps every finished row in the run's
// directory, one file per contract:
//
//	dir/rows/<doc id>.json   {"key": {...}, "row": {...}}
//
// written atomically (temporary file, fsync, rename, fsync directory), so a
// kill at any moment leaves each row file either absent or complete. The key
// is the document's id and content hash, the playbook's hash, the engine
// version (EngineVersion, the detectors' version) and the refiner's version.
// Starting the run again reuses every row whose key still matches and
// reviews only the rest: a killed review finishes without redoing finished
// contracts, and a contract whose content changed since is reviewed again.
// Rows of documents that could not be read, or whose model pass failed, are
// not kept, so the next run tries them again.
//
// (One file per row rather than an append-only log: a changed document simply
// replaces its file, nothing needs compacting, and the server can read one
// contract's row without the others.)

// EngineVersion changes whenever the offline reviewer gives different cells
// for the same contract, playbook and detectors; rows kept by an older
// engine are reviewed again.
const EngineVersion = "review-25"

// Refiner improves an offline row with a model pass (the model-backed review
// in internal/review/modelpass). It is given the contract and the offline row, and returns
// the row it should be replaced with.
type Refiner interface {
	Refine(ctx context.Context, d detect.Doc, row Row) (Row, error)
	// Estimate returns what Refine would spend on d and row: model calls and
	// tokens not already in its cache. It makes no model calls.
	Estimate(ctx context.Context, d detect.Doc, row Row) (Estimate, error)
	// Version names the model and prompt version, so kept rows refined by
	// another model or prompt are redone.
	Version() string
}

// Estimate is the model cost of a review, before spending it.
type Estimate struct {
	Calls            int `json:"calls"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"` // an upper bound
	Cached           int `json:"cached"`            // calls answered from the cache
}

// Add returns the sum of two estimates.
func (e Estimate) Add(o Estimate) Estimate {
	return Estimate{Calls: e.Calls + o.Calls, PromptTokens: e.PromptTokens + o.PromptTokens,
		CompletionTokens: e.CompletionTokens + o.CompletionTokens, Cached: e.Cached + o.Cached}
}

// RowReviewer reviews one contract offline; *Reviewer is one.
type RowReviewer interface {
	Review(ctx context.Context, d detect.Doc) (Row, error)
	Playbook() *playbook.Playbook
	// Fingerprint identifies the reviewer's output (see
	// Reviewer.Fingerprint).
	Fingerprint() string
}

// Run is one review of a store collection.
type Run struct {
	Store      *store.Store
	Collection string
	Reviewer   RowReviewer
	// Refiner, when set, refines every offline row with a model.
	Refiner Refiner
	// Dir keeps the finished rows (see above); empty keeps nothing and
	// reviews every contract.
	Dir string
	// Rows, when set, keeps the finished rows instead of Dir: a server on
	// a cluster keeps them in the cluster, so that another server shows a
	// running review's rows and resumes it without redoing them.
	Rows RowKeeper
	// Docs restricts the review to these document ids (all when empty).
	Docs []string
	// IncludeCorrespondence reviews correspondence too: cover e-mails,
	// letters and indexes (names.Correspondence). Without it a review of
	// the whole collection leaves them out and lists them in
	// Table.Correspondence; documents named in Docs are always reviewed.
	IncludeCorrespondence bool
	// Concurrency bounds the contracts reviewed at once (default: the number
	// of CPUs).
	Concurrency int
	// Progress, when set, is called after every contract, one call at a
	// time.
	Progress func(RunProgress)
	// Logger receives warnings (default slog.Default()).
	Logger *slog.Logger
	// Yield, when set, is called before each contract but the first is
	// reviewed; it may block while other work runs (a server's review job
	// gives its turn to another tenant's: jobs.Yield). An error stops the
	// run as a cancellation does.
	Yield func(ctx context.Context) error
	// Acquire, when set, is called before a contract is read and reviewed
	// offline, and the release it returns after (not around the model
	// pass, which waits on a model server): a server bounds with it the
	// processor time all its background jobs take together.
	Acquire func(ctx context.Context) (release func(), err error)
	// Light, when set and the rows are kept in Dir, keeps in the returned
	// Table only what a summary of a kept row needs — its cells without
	// their extracts, notes, risks and answer spans — and reads kept rows
	// one at a time rather than all at once: the memory a review of a large
	// collection takes then no longer grows with the extracts of every
	// contract. FullRow reads a row back whole.
	Light bool
}

// RowKeeper keeps a run's finished rows, each under its document id, as
// the bytes the run gives it. A row is written whole, once per finished
// contract, by the process running the review.
type RowKeeper interface {
	// KeptRows returns every row kept so far, by document id.
	KeptRows(ctx context.Context) (map[string][]byte, error)
	KeepRow(ctx context.Context, docID string, raw []byte) error
}

// dirRows keeps rows as files in dir/rows (see above).
type dirRows string

func (d dirRows) KeptRows(_ context.Context) (map[string][]byte, error) {
	ents, err := os.ReadDir(filepath.Join(string(d), "rows"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() {
			continue // temporary files of a write cut short, too
		}
		if raw, err := os.ReadFile(filepath.Join(string(d), "rows", e.Name())); err == nil {
			out[id] = raw
		}
	}
	return out, nil
}

// keptRow returns the row kept for one document, if any.
func (d dirRows) keptRow(docID string) ([]byte, bool) {
	raw, err := os.ReadFile(filepath.Join(string(d), "rows", docID+".json"))
	return raw, err == nil
}

func (d dirRows) KeepRow(_ context.Context, docID string, raw []byte) error {
	dir := filepath.Join(string(d), "rows")
	if err := mkdirIn(dir); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, docID+".json"), raw, 0o644)
}

// mkdirIn makes directory dir inside its parent, which must exist: a run's
// directory removed while it runs (its collection deleted) is never brought
// back holding rows of a deleted tenant.
func mkdirIn(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return nil
}

func (run *Run) log() *slog.Logger {
	if run.Logger != nil {
		return run.Logger
	}
	return slog.Default()
}

// rows returns where the run keeps its rows, or nil.
func (run *Run) rows() RowKeeper {
	if run.Rows != nil {
		return run.Rows
	}
	if run.Dir != "" {
		return dirRows(run.Dir)
	}
	return nil
}

// keptRows reads every kept row once; a run that keeps none, or cannot read
// them, has none (and reviews every contract).
func (run *Run) keptRows(ctx context.Context) map[string][]byte {
	k := run.rows()
	if k == nil {
		return nil
	}
	rows, err := k.KeptRows(ctx)
	if err != nil {
		run.log().Warn("review: cannot read the rows kept by an earlier run; reviewing every contract", "err", err)
	}
	return rows
}

// RunProgress is how far a run has got.
type RunProgress struct {
	Done    int    `json:"done"`
	Total   int    `json:"total"`
	Current string `json:"current,omitempty"` // the contract just finished
	Reused  int    `json:"reused"`            // rows kept from an earlier run
	Failed  int    `json:"failed"`            // rows with an error
}

// RunStats summarises a finished run.
type RunStats struct {
	Contracts int `json:"contracts"`
	Reviewed  int `json:"reviewed"` // reviewed in this run
	Reused    int `json:"reused"`   // kept from an earlier run
	Failed    int `json:"failed"`   // reported with Row.Error
	Found     int `json:"found"`    // found cells
	Cells     int `json:"cells"`
}

// rowKey identifies what a kept row was computed from.
type rowKey struct {
	DocID    string `json:"doc_id"`
	DocHash  string `json:"doc_hash"`
	Playbook string `json:"playbook"`
	Engine   string `json:"engine"`
	Refiner  string `json:"refiner,omitempty"`
}

type keptRow struct {
	Key rowKey `json:"key"`
	Row Row    `json:"row"`
}

// Fingerprint identifies the reviewer's output: a hash of its playbook, its
// detectors and EngineVersion. Two reviewers with the same fingerprint give
// the same cells for the same contract.
func (r *Reviewer) Fingerprint() string {
	h := sha256.New()
	pb, _ := json.Marshal(r.pb)
	h.Write(pb)
	h.Write([]byte{0})
	if r.det != nil {
		det, _ := json.Marshal(r.det)
		h.Write(det)
	}
	h.Write([]byte{0})
	h.Write([]byte(EngineVersion))
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// Table runs the review and returns the whole table, rows in the
// collection's order (by document name). A contract that cannot be read is
// reported in its row (Row.Error) and the others complete. On cancellation
// the rows finished so far are kept in Dir and ctx's error is returned.
func (run *Run) Table(ctx context.Context) (*Table, RunStats, error) {
	if run.Store == nil || run.Reviewer == nil {
		return nil, RunStats{}, errors.New("review: run needs a store and a reviewer")
	}
	log := run.log()
	infos, err := run.docs(ctx)
	if err != nil {
		return nil, RunStats{}, err
	}
	pb := run.Reviewer.Playbook()
	tab := &Table{Playbook: pb.Name, Version: pb.Version, Provisions: pb.Names(), Rows: make([]Row, len(infos))}
	if len(run.Docs) == 0 && !run.IncludeCorrespondence {
		if all, err := run.Store.List(ctx, run.Collection); err == nil {
			_, corr := run.withoutCorrespondence(ctx, all)
			for _, in := range corr {
				tab.Correspondence = append(tab.Correspondence, in.Name)
			}
		}
	}
	stats := RunStats{Contracts: len(infos)}
	key := rowKey{Playbook: run.Reviewer.Fingerprint(), Engine: EngineVersion}
	if run.Refiner != nil {
		key.Refiner = run.Refiner.Version()
	}
	if run.Rows == nil && run.Dir != "" {
		rows := filepath.Join(run.Dir, "rows")
		if err := mkdirIn(rows); err != nil {
			return nil, stats, fmt.Errorf("review: %w", err)
		}
		// Rows cut short by a killed run: the run owns its directory.
		if n := atomicfile.RemoveStale(rows, 0); n > 0 {
			log.Info("review: removed temporary files of an interrupted run", "files", n)
		}
	}

	// Rows kept by an earlier run (a light run reads them one at a time).
	one, light := run.rows().(dirRows)
	light = light && run.Light
	var kept map[string][]byte
	if !light {
		kept = run.keptRows(ctx)
	}
	var todo []int
	for i, in := range infos {
		k := key
		k.DocID, k.DocHash = in.ID, in.Source.SHA256
		if light {
			kept = nil
			if raw, ok := one.keptRow(in.ID); ok {
				kept = map[string][]byte{in.ID: raw}
			}
		}
		if row, ok := keptFor(kept, k); ok {
			if light {
				row = lightRow(row)
			}
			tab.Rows[i] = row
			stats.Reused++
			continue
		}
		todo = append(todo, i)
	}
	prog := RunProgress{Total: len(infos), Done: stats.Reused, Reused: stats.Reused}
	if run.Progress != nil && len(infos) > 0 {
		run.Progress(prog)
	}

	n := run.Concurrency
	if n <= 0 {
		n = runtime.NumCPU()
	}
	n = max(1, min(n, len(todo)))
	type result struct {
		i     int
		row   Row
		keep  bool
		fatal error
	}
	results := parallel.Stream(ctx, len(todo), n, 0, func(k int) result {
		i := todo[k]
		// Between contracts, a long review gives its turn to another
		// tenant's job (jobs.Yield); every worker waits for it to come back.
		if k > 0 && run.Yield != nil {
			if err := run.Yield(ctx); err != nil {
				return result{i: i, fatal: err}
			}
		}
		row, keep, err := run.safeOne(ctx, infos[i])
		return result{i: i, row: row, keep: keep, fatal: err}
	})
	var fatal error
	for res := range results {
		if res.fatal != nil {
			if fatal == nil {
				fatal = res.fatal
			}
			continue
		}
		tab.Rows[res.i] = res.row
		stats.Reviewed++
		if res.keep && run.rows() != nil {
			k := key
			k.DocID, k.DocHash = infos[res.i].ID, infos[res.i].Source.SHA256
			if err := run.keep(ctx, keptRow{Key: k, Row: res.row}); err != nil {
				log.Warn("review: cannot keep a finished row; it will be redone on resume", "doc", res.row.DocName, "err", err)
			} else if light {
				tab.Rows[res.i] = lightRow(res.row)
			}
		}
		prog.Done++
		prog.Current = res.row.DocName
		if res.row.Error != "" {
			prog.Failed++
		}
		if run.Progress != nil {
			run.Progress(prog)
		}
	}
	if fatal == nil {
		fatal = ctx.Err()
	}
	if fatal != nil {
		return nil, stats, fatal
	}
	for i, row := range tab.Rows {
		// The contract as people name it (title, parties, date), from the
		// names learnt at ingest.
		if nm, err := docread.DocNames(ctx, run.Store, run.Collection, row.DocID); err == nil {
			tab.Rows[i].DocTitle = names.Display(nm, row.DocName)
		}
		if row.Error != "" {
			stats.Failed++
		}
		for _, c := range row.Cells {
			stats.Cells++
			if c.Found {
				stats.Found++
			}
		}
	}
	return tab, stats, nil
}

// Estimate returns the model cost of refining the contracts not yet kept in
// Dir, reviewing them offline to know the candidates; it makes no model
// calls. Without a Refiner it is zero.
func (run *Run) Estimate(ctx context.Context) (Estimate, error) {
	var total Estimate
	if run.Refiner == nil {
		return total, nil
	}
	infos, err := run.docs(ctx)
	if err != nil {
		return total, err
	}
	key := rowKey{Playbook: run.Reviewer.Fingerprint(), Engine: EngineVersion, Refiner: run.Refiner.Version()}
	kept := run.keptRows(ctx)
	for _, in := range infos {
		k := key
		k.DocID, k.DocHash = in.ID, in.Source.SHA256
		if _, ok := keptFor(kept, k); ok {
			continue
		}
		d, err := run.load(ctx, in)
		if err != nil {
			continue // reported when the review runs
		}
		row, err := run.Reviewer.Review(ctx, d)
		if err != nil {
			if ctx.Err() != nil {
				return total, ctx.Err()
			}
			continue
		}
		e, err := run.Refiner.Estimate(ctx, d, row)
		if err != nil {
			return total, fmt.Errorf("review: estimate %s: %w", in.Name, err)
		}
		total = total.Add(e)
	}
	return total, nil
}

// Kept returns the rows an earlier or running review kept (in Rows or Dir)
// that are still valid (same document content, playbook, engine and
// refiner), in collection order: the part of the table already finished.
func (run *Run) Kept(ctx context.Context) ([]Row, error) {
	infos, err := run.docs(ctx)
	if err != nil {
		return nil, err
	}
	key := rowKey{Playbook: run.Reviewer.Fingerprint(), Engine: EngineVersion}
	if run.Refiner != nil {
		key.Refiner = run.Refiner.Version()
	}
	var kept map[string][]byte
	if k := run.rows(); k != nil {
		if kept, err = k.KeptRows(ctx); err != nil {
			return nil, fmt.Errorf("review: kept rows: %w", err)
		}
	}
	var out []Row
	for _, in := range infos {
		k := key
		k.DocID, k.DocHash = in.ID, in.Source.SHA256
		if row, ok := keptFor(kept, k); ok {
			out = append(out, row)
		}
	}
	return out, nil
}

// withoutCorrespondence splits a collection's documents into the contracts
// and the correspondence (cover e-mails, letters, indexes:
// names.Correspondence, learnt at ingest), unless the run includes
// correspondence.
func (run *Run) withoutCorrespondence(ctx context.Context, all []store.DocInfo) (contracts, corr []store.DocInfo) {
	if run.IncludeCorrespondence {
		return all, nil
	}
	for _, in := range all {
		if nm, err := docread.DocNames(ctx, run.Store, run.Collection, in.ID); err == nil && nm.Correspondence != "" {
			corr = append(corr, in)
			continue
		}
		contracts = append(contracts, in)
	}
	return contracts, corr
}

// docs lists the contracts to review, in collection order.
func (run *Run) docs(ctx context.Context) ([]store.DocInfo, error) {
	all, err := run.Store.List(ctx, run.Collection)
	if err != nil {
		return nil, fmt.Errorf("review: collection %q: %w", run.Collection, err)
	}
	if len(run.Docs) == 0 {
		kept, _ := run.withoutCorrespondence(ctx, all)
		return kept, nil
	}
	want := map[string]bool{}
	for _, id := range run.Docs {
		want[id] = true
	}
	var out []store.DocInfo
	for _, in := range all {
		if want[in.ID] {
			out = append(out, in)
			delete(want, in.ID)
		}
	}
	for id := range want {
		return nil, fmt.Errorf("review: collection %q has no document %q: %w", run.Collection, id, store.ErrNotFound)
	}
	return out, nil
}

// load reads one contract from the store.
func (run *Run) load(ctx context.Context, in store.DocInfo) (detect.Doc, error) {
	rec, err := run.Store.Document(ctx, run.Collection, in.ID)
	if err != nil {
		return detect.Doc{}, err
	}
	return detect.Doc{ID: in.ID, Name: in.Name, Hash: in.Source.SHA256, Doc: rec.Doc, Tree: docread.Tree(rec), Stored: docread.StoredReview(ctx, run.Store, run.Collection, in.ID)}, nil
}

// safeOne is one with a panic turned into the row's error: whatever a
// playbook, a detectors file or a contract makes the reviewer do, a review
// worker never takes the process down (a panic in a goroutine cannot be
// recovered by anyone else), and the other contracts complete. The row is
// not kept, so a resumed run tries the contract again.
func (run *Run) safeOne(ctx context.Context, in store.DocInfo) (row Row, keep bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			run.log().Error("review: reviewing a contract panicked; reported in its row", "doc", in.Name, "panic", p, "stack", string(debug.Stack()))
			row, keep, err = Row{DocID: in.ID, DocName: in.Name, Error: fmt.Sprintf("internal error while reviewing this contract (please report): %v", p)}, false, nil
		}
	}()
	return run.one(ctx, in)
}

// one reviews one contract. keep says whether the row may be kept for a
// resumed run; err is set only when the whole run must stop (cancellation).
func (run *Run) one(ctx context.Context, in store.DocInfo) (row Row, keep bool, err error) {
	if err := ctx.Err(); err != nil {
		return Row{}, false, err
	}
	failed := func(what string, e error) (Row, bool, error) {
		return Row{DocID: in.ID, DocName: in.Name, Error: fmt.Sprintf("%s: %v", what, e)}, false, nil
	}
	release := func() {}
	if run.Acquire != nil {
		if release, err = run.Acquire(ctx); err != nil {
			return Row{}, false, err
		}
	}
	d, err := run.load(ctx, in)
	if err != nil {
		release()
		return failed("cannot read the document", err)
	}
	row, err = run.Reviewer.Review(ctx, d)
	release()
	if err != nil {
		if ctx.Err() != nil {
			return Row{}, false, ctx.Err()
		}
		return failed("cannot review the document", err)
	}
	if run.Refiner == nil {
		return row, true, nil
	}
	refined, err := run.Refiner.Refine(ctx, d, row)
	if err != nil {
		if ctx.Err() != nil {
			return Row{}, false, ctx.Err()
		}
		// The cells the model could not answer keep their offline answers
		// (the refiner notes them); the row says the model pass failed and
		// is not kept, so a resumed run tries the model again.
		if len(refined.Cells) == len(row.Cells) {
			row = refined
		}
		row.Error = fmt.Sprintf("model pass failed (offline cells shown where it failed): %v", err)
		return row, false, nil
	}
	return refined, true, nil
}

// lightRow is row as a light run's table holds it (Run.Light): what a
// summary reads of each cell, the rest left in the kept row.
func lightRow(row Row) Row {
	cells := make([]Cell, len(row.Cells))
	for i, c := range row.Cells {
		cells[i] = Cell{DocID: c.DocID, DocName: c.DocName, Provision: c.Provision, Found: c.Found,
			Confidence: c.Confidence, Value: c.Value, Method: c.Method}
		if c.Answer != nil {
			cells[i].Answer = &answer.Answer{Kind: c.Answer.Kind, Text: c.Answer.Text, Condition: c.Answer.Condition, Excludes: c.Answer.Excludes}
		}
	}
	row.Cells, row.light = cells, true
	return row
}

// FullRow returns a row of a table Table returned whole: a row a light run
// (Run.Light) holds without its extracts is read back from where the run
// kept it.
func (run *Run) FullRow(row Row) (Row, error) {
	if !row.light {
		return row, nil
	}
	d, ok := run.rows().(dirRows)
	if !ok {
		return row, fmt.Errorf("review: row of %s: not kept in a directory", row.DocName)
	}
	raw, ok := d.keptRow(row.DocID)
	var k keptRow
	if !ok || json.Unmarshal(raw, &k) != nil || k.Row.DocID != row.DocID {
		return row, fmt.Errorf("review: the kept row of %s is gone or unreadable (was the review run again meanwhile?)", row.DocName)
	}
	// what the table learnt of the contract after its row was kept (its
	// title, from the names read at ingest) stays
	full := k.Row
	full.DocTitle = row.DocTitle
	return full, nil
}

// keptFor returns the kept row for key, if any.
func keptFor(kept map[string][]byte, key rowKey) (Row, bool) {
	raw, ok := kept[key.DocID]
	if !ok || key.DocHash == "" {
		return Row{}, false
	}
	var k keptRow
	if json.Unmarshal(raw, &k) != nil || k.Key != key {
		return Row{}, false
	}
	return k.Row, true
}

func (run *Run) keep(ctx context.Context, k keptRow) error {
	raw, err := json.Marshal(k)
	if err != nil {
		return err
	}
	return run.rows().KeepRow(ctx, k.Key.DocID, raw)
}
