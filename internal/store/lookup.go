package store

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"slices"
	"sync"
)

// Looking documents up without decoding the collection.
//
// A collection's manifest keeps each document's entry as its JSON, decoded on
// first use (lazyEntry). Two questions used to be answered by decoding every
// entry (List, ~30 µs a document): which stored documents hold the same
// source bytes as a file being ingested (FindSource), and which documents
// changed since the search index was last brought up to date (Changes). Both
// are answered here from what the manifest knows without decoding: each
// entry's revision is in its directory name, and its source SHA-256 is read
// out of its JSON by position (sourceSHA). The index by source hash is built
// once per process and collection state, from the records as they are read,
// and kept up to date as later records are applied (applyLine), so it is
// derived from the log and has nothing of its own to keep crash-safe.

// shaIndex maps the source SHA-256 of the live documents to their ids. It is
// built on first use (FindSource) and then maintained by applyLine.
type shaIndex struct {
	mu    sync.Mutex          // taken by readers building it under the state's read lock
	bySHA map[string][]string // nil until built
}

func (x *shaIndex) add(sha, id string) {
	if sha != "" {
		x.bySHA[sha] = append(x.bySHA[sha], id)
	}
}

func (x *shaIndex) remove(sha, id string) {
	ids := x.bySHA[sha]
	if i := slices.Index(ids, id); i >= 0 {
		ids = slices.Delete(slices.Clip(ids), i, i+1)
		if len(ids) == 0 {
			delete(x.bySHA, sha)
		} else {
			x.bySHA[sha] = ids
		}
	}
}

// build fills the index from m's live documents.
func (x *shaIndex) build(m *manifest) {
	x.bySHA = make(map[string][]string, len(m.Docs))
	for id, l := range m.Docs {
		x.add(l.sourceSHA(), id)
	}
}

// replaced keeps a built index current when the record of id changes from
// old to l (either may be nil). Called by applyLine, which holds the state's
// write lock.
func (m *manifest) replaced(id string, old, l *lazyEntry) {
	if m.sha.bySHA == nil {
		return
	}
	if old != nil {
		m.sha.remove(old.sourceSHA(), id)
	}
	if l != nil {
		m.sha.add(l.sourceSHA(), id)
	}
}

var (
	sourceKey = []byte(`"source":{"path":"`)
	shaKey    = []byte(`,"sha256":"`)
)

// sourceSHA returns the SHA-256 of the document's source file (its
// DocInfo.Source.SHA256). It reads it out of the entry's JSON without
// decoding it, where the JSON has the layout encoding/json gives an entry
// ({"dir":…,"info":{"id":…,…,"source":{"path":"…","sha256":"…",…},…},…});
// anything else is decoded. The first `"source":{"path":"` in the JSON is the
// info's source: nothing before it is an object but info, and a JSON string
// cannot hold an unescaped quote.
func (l *lazyEntry) sourceSHA() string {
	if l.src != nil && l.sha != "" {
		return hex.EncodeToString([]byte(l.sha))
	}
	if l.src == nil && l.raw != nil {
		if i := bytes.Index(l.raw, sourceKey); i >= 0 {
			rest := l.raw[i+len(sourceKey):]
			if end := stringEnd(rest); end >= 0 && bytes.HasPrefix(rest[end+1:], shaKey) {
				v := rest[end+1+len(shaKey):]
				if k := bytes.IndexByte(v, '"'); k >= 0 && lowerHex(v[:k]) {
					return string(v[:k])
				}
			}
		}
	}
	e, err := l.get()
	if err != nil {
		return ""
	}
	return e.Info.Source.SHA256
}

// stringEnd returns the index of the quote closing the JSON string whose
// contents b starts with, or -1.
func stringEnd(b []byte) int {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

func lowerHex(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// FindSource returns the live documents of a collection whose source file
// has SHA-256 sha (lowercase hex), sorted as List sorts (by name, then id);
// none for an empty sha. On a local store it decodes only those documents'
// entries: the collection's state keeps an index by source hash (built on
// the first call from the records' JSON without decoding them, then kept up
// to date as records are read), so looking up a file being ingested costs
// the same in a collection of any size. On a remote store it lists the
// collection.
func (s *Store) FindSource(ctx context.Context, collection, sha string) ([]DocInfo, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if err := checkCollection(collection); err != nil {
		return nil, err
	}
	if sha == "" {
		return nil, nil
	}
	return s.engine.findSource(ctx, collection, sha)
}

// findSource: a directory store decodes only the entries its index by
// source hash names.
func (d dirEngine) findSource(_ context.Context, collection, sha string) ([]DocInfo, error) {
	s := d.s
	var out []DocInfo
	if err := s.view(collection, func(m *manifest) error {
		m.sha.mu.Lock()
		if m.sha.bySHA == nil {
			m.sha.build(m)
		}
		ids := slices.Clone(m.sha.bySHA[sha])
		m.sha.mu.Unlock()
		for _, id := range ids {
			l := m.Docs[id]
			if l == nil {
				continue
			}
			e, err := l.in(collection, id)
			if err != nil {
				return err
			}
			if e.Info.Source.SHA256 == sha { // what the index read is what the entry says
				out = append(out, e.info())
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	sortInfos(out)
	return out, nil
}

// findSource: a remote store lists the collection.
func (e remoteEngine) findSource(ctx context.Context, collection, sha string) ([]DocInfo, error) {
	all, err := e.list(ctx, collection)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(in DocInfo) bool { return in.Source.SHA256 != sha }), nil
}

func sortInfos(infos []DocInfo) {
	slices.SortFunc(infos, func(a, b DocInfo) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
	})
}

// Changes returns what a reader that last saw a collection at generation
// since needs to catch up: the live documents put after it (their
// DocInfo, sorted as List sorts) and the ids of all live documents. With
// since 0 every document is changed. On a local store only the changed
// documents' entries are decoded (a document's revision is in its
// directory's name); on a remote one it lists the collection and every
// document counts as changed.
func (s *Store) Changes(ctx context.Context, collection string, since uint64) (changed []DocInfo, live map[string]bool, err error) {
	if err := s.checkOpen(); err != nil {
		return nil, nil, err
	}
	if err := checkCollection(collection); err != nil {
		return nil, nil, err
	}
	return s.engine.changes(ctx, collection, since)
}

// changes: a directory store decodes only the changed documents' entries
// (a document's revision is in its directory's name).
func (d dirEngine) changes(_ context.Context, collection string, since uint64) (changed []DocInfo, live map[string]bool, err error) {
	s := d.s
	err = s.view(collection, func(m *manifest) error {
		live = make(map[string]bool, len(m.Docs))
		var err error
		changed, err = m.infos(collection, func(id string, l *lazyEntry) bool {
			live[id] = true
			rev, ok := dirRev(id, l.dir)
			return !ok || rev > since
		})
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	sortInfos(changed)
	return changed, live, nil
}

// changes: a remote store lists the collection; every document counts as
// changed.
func (e remoteEngine) changes(ctx context.Context, collection string, _ uint64) (changed []DocInfo, live map[string]bool, err error) {
	all, err := e.list(ctx, collection)
	if err != nil {
		return nil, nil, err
	}
	live = make(map[string]bool, len(all))
	for _, in := range all {
		live[in.ID] = true
	}
	return all, live, nil
}
