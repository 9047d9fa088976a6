package usecase

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/pakton/pakton/internal/family"
	"github.com/pakton/pakton/internal/parallel"
	"github.com/pakton/pakton/internal/store"
)

// familySigCache is the collection's family signatures as last read: one
// entry per live document whose signature could be read, labelled with the
// generation they were read at (derived; rebuilt when damaged or foreign).
const familySigCache = "family-sigs.bin"

// familySigMagic opens the signature cache; a file of another version is
// read as no cache.
const familySigMagic = "pakton family signatures 1\n"

// signed is one document's family signature with what a family shows of
// it.
type signed struct {
	ID, Name string
	Ingested int64 // when it was ingested, Unix nanoseconds
	Sig      family.Signature
}

// collectionSignatures returns the signatures of a collection's live
// documents, sorted as store.List sorts (name, then id): those of the
// documents unchanged since the signature cache's generation from the
// cache, the others read from the store (in parallel; progress counts
// them), and caches the result. A document whose signature cannot be read
// is left out (it is in no family).
func collectionSignatures(ctx context.Context, st *store.Store, collection string, progress func(done, total int)) ([]signed, error) {
	// The generation is read before the documents (as a snapshot's is): the
	// cache can only be newer than its label.
	gen, err := st.Generation(ctx, collection)
	if err != nil {
		return nil, err
	}
	cached, since, ok := readSigCache(st, collection)
	var todo []store.DocInfo
	var out []signed
	if ok {
		changed, live, err := st.Changes(ctx, collection, since)
		if err != nil {
			return nil, err
		}
		replaced := make(map[string]bool, len(changed))
		for _, in := range changed {
			replaced[in.ID] = true
		}
		// The cache's slice is kept and compacted in place (a signature is
		// 3 KB: a collection's are not copied).
		out = cached[:0]
		for i := range cached {
			if live[cached[i].ID] && !replaced[cached[i].ID] {
				out = append(out, cached[i])
			}
		}
		todo = changed
	} else {
		if todo, err = st.List(ctx, collection); err != nil {
			return nil, err
		}
	}
	read := make([]signed, len(todo))
	good := make([]bool, len(todo))
	var mu sync.Mutex
	done := 0
	err = parallel.Each(ctx, len(todo), runtime.GOMAXPROCS(0), func(i int) {
		in := todo[i]
		if sig, err := docSignature(ctx, st, collection, in); err == nil {
			read[i] = signed{ID: in.ID, Name: in.Name, Ingested: in.Source.IngestedAt.UnixNano(), Sig: sig}
			good[i] = true
		}
		if progress != nil {
			mu.Lock()
			done++
			progress(done, len(todo))
			mu.Unlock()
		}
	})
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if out == nil {
		out = read[:0] // nothing cached: compacted in place
	} else {
		out = slices.Grow(out, len(read))
	}
	for i := range read {
		if good[i] {
			out = append(out, read[i])
		}
	}
	read = nil
	slices.SortFunc(out, func(a, b signed) int {
		return cmpOr(strings.Compare(a.Name, b.Name), strings.Compare(a.ID, b.ID))
	})
	if !ok || len(todo) > 0 || len(out) != len(cached) {
		_ = st.WriteCache(ctx, collection, familySigCache, func(w io.Writer) error { return writeSigCache(w, gen, out) })
	}
	return out, nil
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// writeSigCache writes the signature cache: the magic line, the generation
// and the count, then per document its id, name, ingest time and encoded
// signature, each string and signature after its length.
func writeSigCache(w io.Writer, gen uint64, sigs []signed) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString(familySigMagic)
	var buf [binary.MaxVarintLen64]byte
	uvarint := func(v uint64) { bw.Write(buf[:binary.PutUvarint(buf[:], v)]) }
	bytes := func(b []byte) { uvarint(uint64(len(b))); bw.Write(b) }
	uvarint(gen)
	uvarint(uint64(len(sigs)))
	for _, m := range sigs {
		bytes([]byte(m.ID))
		bytes([]byte(m.Name))
		uvarint(uint64(m.Ingested))
		bytes(m.Sig.Encode())
	}
	return bw.Flush()
}

// readSigCache reads the signature cache and the generation it was read
// at; false when there is none or it cannot be read whole.
func readSigCache(st *store.Store, collection string) ([]signed, uint64, bool) {
	path, err := st.CachePath(collection, familySigCache)
	if err != nil {
		return nil, 0, false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, false
	}
	sigs, gen, err := decodeSigCache(b)
	if err != nil {
		return nil, 0, false
	}
	return sigs, gen, true
}

var errSigCache = errors.New("not a family signature cache")

func decodeSigCache(b []byte) ([]signed, uint64, error) {
	if !strings.HasPrefix(string(b[:min(len(b), len(familySigMagic))]), familySigMagic) {
		return nil, 0, errSigCache
	}
	b = b[len(familySigMagic):]
	uvarint := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	bytes := func() ([]byte, bool) {
		n, ok := uvarint()
		if !ok || n > uint64(len(b)) {
			return nil, false
		}
		out := b[:n]
		b = b[n:]
		return out, true
	}
	gen, ok1 := uvarint()
	n, ok2 := uvarint()
	if !ok1 || !ok2 || n > uint64(len(b)) {
		return nil, 0, errSigCache
	}
	out := make([]signed, 0, n)
	for range n {
		id, ok1 := bytes()
		name, ok2 := bytes()
		at, ok3 := uvarint()
		enc, ok4 := bytes()
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return nil, 0, errSigCache
		}
		sig, err := family.Decode(enc)
		if err != nil {
			return nil, 0, fmt.Errorf("%w: %v", errSigCache, err)
		}
		out = append(out, signed{ID: string(id), Name: string(name), Ingested: int64(at), Sig: sig})
	}
	if len(b) != 0 {
		return nil, 0, errSigCache
	}
	return out, gen, nil
}
