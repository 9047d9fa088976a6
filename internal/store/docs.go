package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/atomicfile"
	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
)

// faultHook, when set by a test, is called before each step of a write and
// may fail it, to check that a failure anywhere leaves the store consistent.
var faultHook func(step string) error

func fault(step string) error {
	if faultHook != nil {
		return faultHook(step)
	}
	return nil
}

// docMeta is a version directory's meta.json: everything about the document
// except the bulky files, plus enough to rebuild a lost manifest.
type docMeta struct {
	Format int                `json:"format"`
	Doc    *document.Document `json:"doc"` // Text is stored in text.txt
	Info   DocInfo            `json:"info"`
	Files  files              `json:"files"`
}

// prepared holds the encoded files of one Put, built before taking the lock.
type prepared struct {
	id        string
	text      []byte
	tree      []byte // nil without a tree
	meta      []byte
	info      DocInfo
	files     files
	artifacts map[string][]byte
}

func sumOf(b []byte) fileSum {
	h := sha256.Sum256(b)
	return fileSum{SHA256: hex.EncodeToString(h[:]), Size: int64(len(b))}
}

func prepare(collection string, rec *Record) (*prepared, error) {
	if rec == nil || rec.Doc == nil {
		return nil, fmt.Errorf("store: collection %q: put: record without a document", collection)
	}
	d := rec.Doc
	if err := checkDocID(collection, d.ID); err != nil {
		return nil, err
	}
	p := &prepared{id: d.ID, text: []byte(d.Text), artifacts: rec.Artifacts}
	p.files.Text = sumOf(p.text)
	src := rec.Source
	if src.IngestedAt.IsZero() {
		src.IngestedAt = time.Now().UTC()
	}
	p.info = DocInfo{
		ID: d.ID, Name: d.Name, Format: d.Format,
		Runes: utf8.RuneCountInString(d.Text), Pages: len(d.Pages), Source: src,
	}
	if rec.Tree != nil {
		b, err := json.Marshal(rec.Tree)
		if err != nil {
			return nil, fmt.Errorf("store: collection %q: document %q: encode tree: %w", collection, d.ID, err)
		}
		p.tree = b
		s := sumOf(b)
		p.files.Tree = &s
		p.info.Nodes = len(rec.Tree.Nodes)
	}
	if len(rec.Artifacts) > 0 {
		p.files.Artifacts = make(map[string]fileSum, len(rec.Artifacts))
		for name, b := range rec.Artifacts {
			if err := checkArtifactName(collection, d.ID, name); err != nil {
				return nil, err
			}
			p.files.Artifacts[name] = sumOf(b)
		}
	}
	meta, err := json.Marshal(docMeta{Format: FormatVersion, Doc: d, Info: p.info, Files: p.files})
	if err != nil {
		return nil, fmt.Errorf("store: collection %q: document %q: encode meta: %w", collection, d.ID, err)
	}
	p.meta = meta
	return p, nil
}

// Put stores rec in a collection under rec.Doc.ID, atomically replacing any
// document with that id: readers and a crash see the old version or the new
// one, never a mix. Putting into a collection other than the default one
// requires CreateCollection first. A zero Source.IngestedAt is stored as the
// current time; rec is not modified.
func (s *Store) Put(ctx context.Context, collection string, rec *Record) error {
	p, err := prepare(collection, rec)
	if err != nil {
		return err
	}
	err = s.engine.put(ctx, collection, p)
	if err != nil && !errors.Is(err, ErrClosed) {
		return fmt.Errorf("store: collection %q: put document %q: %w", collection, p.id, err)
	}
	return err
}

func (s *Store) putLocked(collection string, p *prepared) error {
	if collection == DefaultCollection && !s.exists(collection) {
		if err := s.createCollectionLocked(collection); err != nil {
			return err
		}
	}
	var gen uint64
	var old *lazyEntry
	if err := s.view(collection, func(m *manifest) error {
		gen, old = m.Generation, m.Docs[p.id]
		return nil
	}); err != nil {
		return err
	}
	docs := s.docsDir(collection)
	tmp := filepath.Join(docs, atomicfile.TempName())
	if err := s.writeVersion(tmp, p); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	rev := gen + 1
	final := filepath.Join(docs, versionDir(p.id, rev))
	// A directory by this name can only be left over from a writer that
	// crashed before committing: the manifest never references revisions
	// above its generation.
	if err := os.RemoveAll(final); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := fault("rename"); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := atomicfile.SyncDir(docs); err != nil {
		os.RemoveAll(final)
		return err
	}
	body, err := json.Marshal(&entry{Dir: versionDir(p.id, rev), Info: p.info, Meta: sumOf(p.meta), Files: p.files})
	if err != nil {
		os.RemoveAll(final)
		return err
	}
	committed, err := s.appendRecord(collection, logLine(opPut, rev, p.id, body))
	if !committed {
		os.RemoveAll(final)
		return err
	}
	if err != nil {
		return err // committed but maybe not durable; leave the old version for recovery
	}
	if old != nil {
		s.removeVersion(collection, old.dir)
	}
	return s.maybeCompact(collection)
}

// writeVersion writes a complete, fsynced version directory at dir. All files
// are written before any is fsynced: the first fsync's journal commit then
// tends to carry the others' data too, which makes the rest cheap.
func (s *Store) writeVersion(dir string, p *prepared) error {
	var v pendingVersion
	err := v.write(dir, p)
	if err == nil {
		err = v.sync()
	}
	if cerr := v.close(); err == nil {
		err = cerr
	}
	return err
}

// pendingVersion is a version directory written but not yet fsynced: a batch
// writes all its versions before fsyncing any, so one journal commit carries
// most of them.
type pendingVersion struct {
	files []*os.File
	dirs  []string // fsynced after the files, innermost first
}

func (v *pendingVersion) write(dir string, p *prepared) error {
	create := func(step, path string, data []byte) error {
		if err := fault(step); err != nil {
			return err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		v.files = append(v.files, f)
		_, err = f.Write(data)
		return err
	}
	if err := fault("mkdir"); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	if err := create("text", filepath.Join(dir, "text.txt"), p.text); err != nil {
		return err
	}
	if p.tree != nil {
		if err := create("tree", filepath.Join(dir, "tree.json"), p.tree); err != nil {
			return err
		}
	}
	adir := filepath.Join(dir, "artifacts")
	if len(p.artifacts) > 0 {
		if err := fault("artifacts"); err != nil {
			return err
		}
		if err := os.Mkdir(adir, 0o755); err != nil {
			return err
		}
		for _, name := range slices.Sorted(maps.Keys(p.artifacts)) {
			if err := create("artifact", filepath.Join(adir, name+".bin"), p.artifacts[name]); err != nil {
				return err
			}
		}
		v.dirs = append(v.dirs, adir)
	}
	if err := create("meta", filepath.Join(dir, "meta.json"), p.meta); err != nil {
		return err
	}
	v.dirs = append(v.dirs, dir)
	return nil
}

func (v *pendingVersion) sync() error {
	if err := fault("sync"); err != nil {
		return err
	}
	for _, f := range v.files {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	for _, d := range v.dirs {
		if err := atomicfile.SyncDir(d); err != nil {
			return err
		}
	}
	return nil
}

func (v *pendingVersion) close() error {
	var err error
	for _, f := range v.files {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	v.files = nil
	return err
}

// PutBatch stores several records in a collection like Put, each document
// atomically, committing them together: their versions are written, then
// fsynced, then their records appended to the log in one write and one
// fsync. That is several times faster than one Put per document when fsync
// is slow. A crash may leave any prefix of the batch stored (each document
// whole or absent). On an error nothing of the batch is stored; the caller
// may retry the records one by one to find the one at fault. The records'
// ids must differ.
func (s *Store) PutBatch(ctx context.Context, collection string, recs []*Record) error {
	ps := make([]*prepared, 0, len(recs))
	seen := map[string]bool{}
	for _, rec := range recs {
		p, err := prepare(collection, rec)
		if err != nil {
			return err
		}
		if seen[p.id] {
			return fmt.Errorf("store: collection %q: put batch: document %q twice", collection, p.id)
		}
		seen[p.id] = true
		ps = append(ps, p)
	}
	if len(ps) == 0 {
		return nil
	}
	err := s.engine.putBatch(ctx, collection, ps)
	if err != nil && !errors.Is(err, ErrClosed) {
		return fmt.Errorf("store: collection %q: put %d documents: %w", collection, len(ps), err)
	}
	return err
}

func (s *Store) putBatchLocked(collection string, ps []*prepared) (err error) {
	if collection == DefaultCollection && !s.exists(collection) {
		if err := s.createCollectionLocked(collection); err != nil {
			return err
		}
	}
	var gen uint64
	old := make([]*lazyEntry, len(ps))
	if err := s.view(collection, func(m *manifest) error {
		gen = m.Generation
		for i, p := range ps {
			old[i] = m.Docs[p.id]
		}
		return nil
	}); err != nil {
		return err
	}
	docs := s.docsDir(collection)
	var cleanup []string // removed when the batch does not commit
	defer func() {
		if err != nil {
			for _, d := range cleanup {
				os.RemoveAll(d)
			}
		}
	}()
	pending := make([]pendingVersion, len(ps))
	defer func() {
		for i := range pending {
			pending[i].close()
		}
	}()
	tmps := make([]string, len(ps))
	for i, p := range ps {
		tmps[i] = filepath.Join(docs, atomicfile.TempName())
		cleanup = append(cleanup, tmps[i])
		if err := pending[i].write(tmps[i], p); err != nil {
			return err
		}
	}
	for i := range pending {
		if err := pending[i].sync(); err != nil {
			return err
		}
		pending[i].close()
	}
	var lines []byte
	for i, p := range ps {
		rev := gen + uint64(i) + 1
		final := filepath.Join(docs, versionDir(p.id, rev))
		// Left over from a writer that crashed before committing; see putLocked.
		if err := os.RemoveAll(final); err != nil {
			return err
		}
		if err := fault("rename"); err != nil {
			return err
		}
		if err := os.Rename(tmps[i], final); err != nil {
			return err
		}
		cleanup = append(cleanup, final)
		body, err := json.Marshal(&entry{Dir: versionDir(p.id, rev), Info: p.info, Meta: sumOf(p.meta), Files: p.files})
		if err != nil {
			return err
		}
		lines = append(lines, logLine(opPut, rev, p.id, body)...)
	}
	if err := atomicfile.SyncDir(docs); err != nil {
		return err
	}
	committed, cerr := s.appendRecord(collection, lines)
	if !committed {
		return cerr
	}
	cleanup = nil
	if cerr != nil {
		return cerr // committed but maybe not durable; leave the old versions for recovery
	}
	for _, o := range old {
		if o != nil {
			s.removeVersion(collection, o.dir)
		}
	}
	return s.maybeCompact(collection)
}

func (s *Store) removeVersion(collection, dir string) {
	if err := os.RemoveAll(filepath.Join(s.docsDir(collection), dir)); err != nil {
		slog.Warn("store: could not remove a replaced document version; the next Open retries", "collection", collection, "dir", dir, "err", err)
	}
}

// Delete removes a document. Deleting one that does not exist is an error
// wrapping ErrNotFound.
func (s *Store) Delete(ctx context.Context, collection, id string) error {
	if err := checkDocID(collection, id); err != nil {
		return err
	}
	return s.engine.delete(ctx, collection, id)
}

func notFound(collection, id string) error {
	return fmt.Errorf("store: collection %q: document %q: %w", collection, id, ErrNotFound)
}

// lookup returns the manifest entry of a document.
func (s *Store) lookup(ctx context.Context, collection, id string) (*entry, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if err := checkDocID(collection, id); err != nil {
		return nil, err
	}
	return s.engine.lookup(ctx, collection, id)
}

// retry runs read against the current version of a document. A writer in
// another process may remove that version between our reading the manifest
// and reading its files; then the manifest names a newer one (or none), and
// the read is repeated.
func retry[T any](ctx context.Context, s *Store, collection, id string, read func(e *entry) (T, error)) (T, error) {
	var zero T
	for attempt := 0; ; attempt++ {
		e, err := s.lookup(ctx, collection, id)
		if err != nil {
			return zero, err
		}
		v, err := read(e)
		if err == nil {
			return v, nil
		}
		if errors.Is(err, fs.ErrNotExist) && attempt < 10 {
			if now, lerr := s.lookup(ctx, collection, id); lerr != nil || now.Dir != e.Dir {
				continue
			}
		}
		return zero, fmt.Errorf("store: collection %q: document %q: %w", collection, id, err)
	}
}

// readFile reads one file of a version and verifies it against its checksum.
func readFile(path string, want fileSum) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if got := sumOf(b); got != want {
		return nil, fmt.Errorf("%s: checksum mismatch (store damaged)", path)
	}
	return b, nil
}

// Get returns a document with its text, tree, source and all artifacts.
func (s *Store) Get(ctx context.Context, collection, id string) (*Record, error) {
	return s.get(ctx, collection, id, true)
}

// Document is Get without the artifacts (Record.Artifacts is empty): the
// document, its clause tree and source. Readers that only need the text use
// it, so they never read a large artifact such as a stored source PDF.
func (s *Store) Document(ctx context.Context, collection, id string) (*Record, error) {
	return s.get(ctx, collection, id, false)
}

// DocumentAsOf is Document for a reader holding a view of the collection as
// it was at generation gen (a search index loaded then): it returns the
// document only if its current version was stored at or before gen — the
// version the reader's view holds — and otherwise an error wrapping
// ErrNotFound, as for a document deleted since. It decodes no other
// document's entry, so a reader need not list the collection to check the
// versions it reads. A remote store, whose versions are not numbered by
// generation, returns an error wrapping errors.ErrUnsupported: compare
// Source against a listing instead.
func (s *Store) DocumentAsOf(ctx context.Context, collection, id string, gen uint64) (*Record, error) {
	if s.IsRemote() {
		return nil, fmt.Errorf("store: versions by generation: %w", errors.ErrUnsupported)
	}
	if gen == 0 {
		return nil, fmt.Errorf("store: collection %q: document %q at generation 0: %w", collection, id, ErrNotFound)
	}
	return s.getAsOf(ctx, collection, id, false, gen)
}

func (s *Store) get(ctx context.Context, collection, id string, artifacts bool) (*Record, error) {
	return s.getAsOf(ctx, collection, id, artifacts, 0)
}

// getAsOf reads a document's current version; with asOf > 0, only if that
// version was stored at or before generation asOf (its directory is named
// by the generation that stored it).
func (s *Store) getAsOf(ctx context.Context, collection, id string, artifacts bool, asOf uint64) (*Record, error) {
	return retry(ctx, s, collection, id, func(e *entry) (*Record, error) {
		dir := e.Dir
		if asOf > 0 {
			if rev, ok := dirRev(id, dir); !ok || rev > asOf {
				return nil, fmt.Errorf("version %s stored after generation %d: %w", dir, asOf, ErrNotFound)
			}
		}
		read := s.engine.reader(ctx, collection, e, artifacts)
		mb, err := read("meta.json", e.Meta)
		if err != nil {
			return nil, err
		}
		var meta docMeta
		if err := json.Unmarshal(mb, &meta); err != nil || meta.Doc == nil {
			return nil, fmt.Errorf("%s: damaged meta.json: %v", dir, err)
		}
		text, err := read("text.txt", e.Files.Text)
		if err != nil {
			return nil, err
		}
		rec := &Record{Doc: meta.Doc, Source: e.Info.Source, Artifacts: make(map[string][]byte, len(e.Files.Artifacts))}
		rec.Doc.Text = string(text)
		if e.Files.Tree != nil {
			tb, err := read("tree.json", *e.Files.Tree)
			if err != nil {
				return nil, err
			}
			if rec.Tree, err = clause.DecodeJSON(tb); err != nil {
				return nil, fmt.Errorf("%s: damaged tree.json: %w", dir, err)
			}
		}
		for name, sum := range e.Files.Artifacts {
			if !artifacts {
				break
			}
			b, err := read("artifacts/"+name+".bin", sum)
			if err != nil {
				return nil, err
			}
			rec.Artifacts[name] = b
		}
		return rec, nil
	})
}

// Info returns a document's summary without reading its files.
func (s *Store) Info(ctx context.Context, collection, id string) (DocInfo, error) {
	e, err := s.lookup(ctx, collection, id)
	if err != nil {
		return DocInfo{}, err
	}
	return e.info(), nil
}

// info is the entry's DocInfo with its artifact names.
func (e *entry) info() DocInfo {
	in := e.Info
	in.Artifacts = nil
	in.ArtifactSums = make(map[string]string, len(e.Files.Artifacts))
	for name, sum := range e.Files.Artifacts {
		in.Artifacts = append(in.Artifacts, name)
		in.ArtifactSums[name] = sum.SHA256
	}
	slices.Sort(in.Artifacts)
	return in
}

// Artifact returns one artifact of a document. A document without an
// artifact by that name yields an error wrapping ErrNotFound.
func (s *Store) Artifact(ctx context.Context, collection, id, name string) ([]byte, error) {
	if err := checkArtifactName(collection, id, name); err != nil {
		return nil, err
	}
	return retry(ctx, s, collection, id, func(e *entry) ([]byte, error) {
		sum, ok := e.Files.Artifacts[name]
		if !ok {
			return nil, fmt.Errorf("artifact %q: %w", name, ErrNotFound)
		}
		return s.readVersionFile(ctx, collection, e, "artifacts/"+name+".bin", sum)
	})
}

// List returns the summaries of a collection's documents sorted by name
// (then id). The slice is the caller's; each summary's Artifacts and
// ArtifactSums may be shared with other callers (a directory store keeps
// its last listing of a collection until the collection changes): read
// them, never change them.
func (s *Store) List(ctx context.Context, collection string) ([]DocInfo, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if err := checkCollection(collection); err != nil {
		return nil, err
	}
	return s.engine.list(ctx, collection)
}

// Generation returns a number that changes whenever a document of the
// collection is put or deleted, so a reader can cache an index built from the
// collection and notice when it is stale. Values are never reused within a
// store directory, even across DeleteCollection; an empty default collection
// nobody has written to has generation 0.
func (s *Store) Generation(ctx context.Context, collection string) (uint64, error) {
	if err := s.checkOpen(); err != nil {
		return 0, err
	}
	if err := checkCollection(collection); err != nil {
		return 0, err
	}
	return s.engine.generation(ctx, collection)
}
