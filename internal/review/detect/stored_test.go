package detect

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/pakton/pakton/examples"
	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
)

// exampleDocs returns the plain-text sample contracts.
func exampleDocs(t *testing.T) []Doc {
	t.Helper()
	var out []Doc
	for _, name := range []string{"contracts/distribution-agreement.txt", "contracts/master-services-agreement.txt", "contracts/mutual-nda.md"} {
		b, err := examples.FS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		doc := &document.Document{ID: name, Name: name, Format: "text", Text: string(b)}
		out = append(out, Doc{ID: name, Name: name, Doc: doc, Tree: clause.Parse(doc)})
	}
	return out
}

// TestPreparedStoredLikeComputed checks that a contract read back from its
// stored preparation is the contract Prepare computes — every passage, word
// and feature — and that a stored preparation that does not fit the
// contract (another text, another tree, another version, cut short or
// damaged) is never used.
func TestPreparedStoredLikeComputed(t *testing.T) {
	for _, d := range exampleDocs(t) {
		want := prepare(d)
		b := want.Encode()
		got, err := DecodePrepared(d, b)
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		if !reflect.DeepEqual(got.wordPassages(), want.passages) || !reflect.DeepEqual(got.feats, want.feats) {
			t.Fatalf("%s: decoded passages or features differ from the computed ones", d.Name)
		}
		if got.ix.Len() != want.ix.Len() || got.tree != want.tree {
			t.Fatalf("%s: decoded index or tree differ", d.Name)
		}
		// Through Prepare, with the bytes as Doc.Stored.
		calls := 0
		ds := d
		ds.Stored = func() []byte { calls++; return b }
		p, err := Prepare(ds)
		if err != nil || calls != 1 || !reflect.DeepEqual(p.wordPassages(), want.passages) {
			t.Fatalf("%s: Prepare with a stored preparation: err %v, %d reads, equal %v", d.Name, err, calls, err == nil && reflect.DeepEqual(p.wordPassages(), want.passages))
		}
		t.Logf("%s: %d passages, %d code points, %d bytes stored", d.Name, len(want.passages), want.ix.Len(), len(b))

		// Another text of another length: not used.
		other := d
		other.Doc = &document.Document{ID: d.ID, Name: d.Name, Format: "text", Text: d.Doc.Text + " More."}
		other.Tree = d.Tree
		if _, err := DecodePrepared(other, b); !errors.Is(err, errStored) {
			t.Errorf("%s: a preparation of another text was used (err %v)", d.Name, err)
		}
		// Another text of the same length, or another heading: not used.
		same := d
		same.Doc = &document.Document{ID: d.ID, Name: d.Name, Format: "text", Text: strings.Replace(d.Doc.Text, "the", "tha", 1)}
		if _, err := DecodePrepared(same, b); !errors.Is(err, errStored) {
			t.Errorf("%s: a preparation of another text of the same length was used (err %v)", d.Name, err)
		}
		renamed := d
		renamed.Tree = &clause.Tree{Nodes: append([]clause.Node{}, d.Tree.Nodes...)}
		renamed.Tree.Nodes[len(renamed.Tree.Nodes)-1].Heading += " x"
		if _, err := DecodePrepared(renamed, b); !errors.Is(err, errStored) {
			t.Errorf("%s: a preparation for a tree with another heading was used (err %v)", d.Name, err)
		}
		// Another tree: not used.
		small := d
		small.Tree = &clause.Tree{Nodes: d.Tree.Nodes[:1]}
		if _, err := DecodePrepared(small, b); !errors.Is(err, errStored) {
			t.Errorf("%s: a preparation for another tree was used (err %v)", d.Name, err)
		}
		// Another version: not used.
		old := append([]byte(preparedMagic), binary.AppendUvarint(nil, PreparedVersion+1)...)
		old = append(old, b[len(preparedMagic)+1:]...) // version 1 takes one byte
		if _, err := DecodePrepared(d, old); !errors.Is(err, errStored) {
			t.Errorf("%s: a preparation of another version was used (err %v)", d.Name, err)
		}
		// Cut short anywhere, or with bytes after it: not used.
		for n := 0; n < len(b); n += 1 + n/8 {
			if _, err := DecodePrepared(d, b[:n]); err == nil {
				t.Fatalf("%s: a preparation cut to %d of %d bytes was used", d.Name, n, len(b))
			}
		}
		if _, err := DecodePrepared(d, append(append([]byte{}, b...), 0)); err == nil {
			t.Errorf("%s: a preparation with a byte after it was used", d.Name)
		}
		// Damaged bytes either fail or decode within bounds (never panic).
		for i := len(preparedMagic) + 1; i < len(b); i += 1 + i/8 {
			bad := append([]byte{}, b...)
			bad[i] ^= 0xff
			if p, err := DecodePrepared(d, bad); err == nil {
				for _, ps := range p.wordPassages() {
					if ps.Span.End > p.ix.Len() || ps.Node >= len(p.tree.Nodes) {
						t.Fatalf("%s: damaged byte %d decoded out of bounds", d.Name, i)
					}
				}
			}
		}
	}
}

// preparedFingerprint is the hash of what the analyzer, the features and
// the cutting of passages make of a fixed text (preparedFingerprintOf).
// When it changes, stored preparations made by the code before are stale:
// bump PreparedVersion, then record the new fingerprint here.
const preparedFingerprint = "dd705537e2c2a064"

// TestPreparedFingerprint fails when what Prepare computes from a contract
// changes without PreparedVersion: a stored preparation must never stand
// for a different one.
func TestPreparedFingerprint(t *testing.T) {
	if got := preparedFingerprintOf(t); got != preparedFingerprint {
		t.Errorf("the preparation of contracts changed (fingerprint %s): bump PreparedVersion and set preparedFingerprint to the new hash", got)
	}
}

func preparedFingerprintOf(t *testing.T) string {
	h := sha256.New()
	h.Write(binary.AppendUvarint(nil, PreparedVersion))
	var text strings.Builder
	for _, d := range exampleDocs(t) {
		text.WriteString(d.Doc.Text)
	}
	all := text.String()
	ix := document.NewIndex(all)
	pars := strings.Split(all, "\n\n")
	for i, par := range pars {
		words := Analyze(par)
		first, _, _ := strings.Cut(par, "\n")
		ps := Passage{Words: words, Context: Analyze(first), LeadIn: Analyze(truncate(par, 50)), Rel: float64(i) / float64(len(pars)), Ordinal: i % 8, Kind: clause.KindSection}
		h.Write([]byte(strings.Join(words, " ")))
		for _, f := range features(&ps, par) {
			h.Write(binary.LittleEndian.AppendUint32(nil, f))
		}
	}
	for _, sp := range cut(ix, document.Span{Start: 0, End: ix.Len()}) {
		h.Write(binary.AppendUvarint(binary.AppendUvarint(nil, uint64(sp.Start)), uint64(sp.End)))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// TestShortUvarintLikeBinary checks the decoder of short indexes against
// binary.Uvarint on every one- and two-byte input, with and without bytes
// after it.
func TestShortUvarintLikeBinary(t *testing.T) {
	for a := range 256 {
		for b := -1; b < 256; b++ {
			in := []byte{byte(a)}
			if b >= 0 {
				in = append(in, byte(b))
			}
			for _, tail := range [][]byte{nil, {0x80}, {1}} {
				buf := append(append([]byte{}, in...), tail...)
				v, l := shortUvarint(buf)
				if l == 0 {
					if w, k := binary.Uvarint(buf); k == 1 || k == 2 {
						t.Fatalf("%x: not read, binary.Uvarint reads %d in %d bytes", buf, w, k)
					}
					continue
				}
				if w, k := binary.Uvarint(buf); w != v || k != l {
					t.Fatalf("%x: %d in %d bytes, binary.Uvarint %d in %d", buf, v, l, w, k)
				}
			}
		}
	}
}
