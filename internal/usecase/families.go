package usecase

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/pakton/pakton/internal/chunk"
	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/family"
	"github.com/pakton/pakton/internal/store"
)

// familyCache is the collection's families as last computed, labelled with
// the generation they were computed at.
const familyCache = "families.json"

// Family is a group of documents that are one contract: near-duplicates
// and versions (the PDF and the Word of one agreement, a draft and its
// executed copy, an amended and restated version).
type Family struct {
	// ID names the family after its first member (by name): "F-" and the
	// first 8 hex digits of its id.
	ID string `json:"id"`
	// Members are the documents, by name; Primary is the one shown for the
	// family in one-row-per-family views: the newest by ingest time unless a
	// member's name or title says it is executed or final.
	Members []FamilyMember `json:"members"`
	Primary string         `json:"primary"`
}

// FamilyMember is one document of a family with its similarity to the
// family's primary document.
type FamilyMember struct {
	ID      string  `json:"id"`
	Name    string  `json:"name"`
	Jaccard float64 `json:"similarity"` // estimated share of shared five-word phrases, 0–1
}

// Families is a collection's families.
type Families struct {
	Generation uint64   `json:"generation"`
	Families   []Family `json:"families"`
	byDoc      map[string]int
}

// Of returns the family of a document, or nil.
func (f *Families) Of(id string) *Family {
	if f == nil {
		return nil
	}
	if i, ok := f.byDoc[id]; ok {
		return &f.Families[i]
	}
	return nil
}

func (f *Families) index() {
	f.byDoc = map[string]int{}
	for i, fam := range f.Families {
		for _, m := range fam.Members {
			f.byDoc[m.ID] = i
		}
	}
}

// CollectionFamilies returns the families of a collection's documents,
// from the cache when it is current, else computed from the stored
// signatures (or, for documents stored before signatures existed, from
// their text) and cached.
func CollectionFamilies(ctx context.Context, st *store.Store, collection string) (*Families, error) {
	return CollectionFamiliesWith(ctx, st, collection, nil)
}

// CollectionFamiliesWith is CollectionFamilies with progress: when the
// families are computed, progress (when set) is called as the documents'
// signatures are read, with how many of how many are done.
//
// Computing them reads only what changed: the signatures are kept in a
// second cache file (familySigCache) labelled with the generation they were
// read at, with each document's name and ingest time, and a computation
// reads from the store only the signatures of the documents put since
// (store.Changes); grouping is then in memory. A collection of 46,800
// contracts therefore pays for reading every signature once, not after
// every upload.
func CollectionFamiliesWith(ctx context.Context, st *store.Store, collection string, progress func(done, total int)) (*Families, error) {
	gen, err := st.Generation(ctx, collection)
	if err != nil {
		return nil, err
	}
	if path, err := st.CachePath(collection, familyCache); err == nil {
		if b, err := os.ReadFile(path); err == nil {
			var f Families
			if json.Unmarshal(b, &f) == nil && f.Generation == gen {
				f.index()
				return &f, nil
			}
		}
	}
	sigs, err := collectionSignatures(ctx, st, collection, progress)
	if err != nil {
		return nil, err
	}
	members := make([]family.Member, len(sigs))
	for i := range sigs {
		members[i] = family.Member{ID: sigs[i].ID, Sig: &sigs[i].Sig}
	}
	groups, _ := family.Group(members, family.Options{})
	f := &Families{Generation: gen}
	for _, g := range groups {
		primary := primaryOf(sigs, g)
		fam := Family{ID: "F-" + sigs[g[0]].ID[:min(8, len(sigs[g[0]].ID))], Primary: sigs[primary].ID}
		for _, i := range g {
			j := 1.0
			if i != primary {
				j = family.Jaccard(*members[i].Sig, *members[primary].Sig)
			}
			fam.Members = append(fam.Members, FamilyMember{ID: sigs[i].ID, Name: sigs[i].Name, Jaccard: j})
		}
		f.Families = append(f.Families, fam)
	}
	f.index()
	_ = st.WriteCache(ctx, collection, familyCache, func(w io.Writer) error { return json.NewEncoder(w).Encode(f) })
	return f, nil
}

// primaryOf picks the member shown for a family: one whose name says it
// is executed, signed or final, else the most recently ingested.
func primaryOf(infos []signed, g []int) int {
	best := g[0]
	rank := func(in signed) int {
		n := lowerASCII(in.Name)
		for _, w := range []string{"executed", "signed", "final", "conformed"} {
			if containsWord(n, w) {
				return 1
			}
		}
		return 0
	}
	for _, i := range g[1:] {
		a, b := infos[i], infos[best]
		if ra, rb := rank(a), rank(b); ra != rb {
			if ra > rb {
				best = i
			}
			continue
		}
		if a.Ingested > b.Ingested {
			best = i
		}
	}
	return best
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

func containsWord(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		if s[i:i+len(w)] == w && (i == 0 || !isAlnum(s[i-1])) && (i+len(w) == len(s) || !isAlnum(s[i+len(w)])) {
			return true
		}
	}
	return false
}

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// docSignature reads a document's signature, computing it from the stored
// text when the document has none.
func docSignature(ctx context.Context, st *store.Store, collection string, in store.DocInfo) (family.Signature, error) {
	if b, err := st.Artifact(ctx, collection, in.ID, docread.ArtifactFamily); err == nil {
		if sig, err := family.Decode(b); err == nil {
			return sig, nil
		}
	} else if !errors.Is(err, store.ErrNotFound) {
		return family.Signature{}, err
	}
	rec, err := st.Document(ctx, collection, in.ID)
	if err != nil {
		return family.Signature{}, fmt.Errorf("%s: %w", in.Name, err)
	}
	return family.SignWithParties(rec.Doc.MaskedText(), family.Parties(chunk.Names(rec.Doc))), nil
}

// Duplicates lists the other members of a document's family, best match
// first, as references for Details.
func (f *Families) Duplicates(id string) []DocRef {
	fam := f.Of(id)
	if fam == nil {
		return nil
	}
	var out []DocRef
	for _, m := range fam.Members {
		if m.ID == id {
			continue
		}
		note := fmt.Sprintf("%.0f%% of five-word phrases shared with the family's main copy", 100*m.Jaccard)
		if m.ID == fam.Primary {
			note = "the family's main copy"
		}
		out = append(out, DocRef{ID: m.ID, Name: m.Name, Note: note})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID == fam.Primary && out[j].ID != fam.Primary })
	return out
}
