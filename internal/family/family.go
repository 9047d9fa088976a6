// Package family finds the same contract twice in a collection: the PDF
// and the Word file of one agreement, a draft and its executed copy, an
// amended and restated version. Byte-identical files are one document
// already (ingest); this package works on content.
//
// Each document gets a signature at ingest: a MinHash of the set of its
// five-word shingles, over words folded to lower case with punctuation,
// numbering layout and page furniture gone, so re-flowed, re-formatted and
// re-paginated copies have the same shingles. The fraction of equal
// minima of two signatures estimates the Jaccard similarity of their
// shingle sets (the expected error with 128 minima is under 0.045). Two
// documents are of one family when that similarity, or the share of the
// smaller document's shingles the larger one contains, reaches a
// threshold, and when their parties do not contradict each other: the
// firm's standard NDA signed with two counterparties is two contracts
// from one template, not one contract twice, and nearly all of its
// shingles are shared. A family is a connected group of such pairs.
//
// Candidate pairs come from locality-sensitive hashing (bands of the
// signature), so grouping a collection costs about linear time; every
// candidate is then checked on its full signature.
package family

import (
	"cmp"
	"encoding/binary"
	"errors"
	"slices"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	learnt "github.com/pakton/pakton/internal/names"
)

// K is the number of minima in a signature.
const K = 128

// shingleWords is the number of words in a shingle.
const shingleWords = 5

// Signature summarises a document's text for near-duplicate detection.
type Signature struct {
	Mins [K]uint64
	// Shingles is the number of distinct shingles the text has (0 for a
	// text too short to have any).
	Shingles int
	// Names are hashes of the names the document opens with: capitalised
	// words of its first 1,500 characters, not next to a number (dates and
	// amounts), that occur at least twice in it — the parties' names,
	// mostly (at most 64).
	Names []uint64
	// Vocab is a Bloom filter of every word of the document (lower case),
	// to ask whether a name of another document occurs in this one.
	Vocab [vocabBytes]byte
}

const (
	vocabBytes  = 2048 // 16,384 bits: under 1% false positives for 2,000 distinct words
	preambleLen = 1500
	nameRecurs  = 3
	maxNames    = 64
	vocabHashes = 4
)

// mix is SplitMix64's finaliser: a fast, well-distributed 64-bit mix.
func mix(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xBF58476D1CE4E5B9
	z ^= z >> 27
	z *= 0x94D049BB133111EB
	z ^= z >> 31
	return z
}

// Words returns the words of a text as the signature sees them: runs of
// letters and digits, in Unicode NFKC (ligatures such as "ﬁ" are two
// letters) and lower case; every other character separates words.
func Words(text string) []string {
	var out []string
	eachWord(fold(text), func(w string) { out = append(out, w) })
	return out
}

// Sign computes the signature of a text (the document's text with its page
// furniture masked, document.Document.MaskedText).
//
// The minima are one-permutation MinHash (Li, Owen and Zhang 2012): each
// shingle is hashed once, the hash's top bits choose one of K bins and the
// rest is kept if it is the bin's least. An empty bin (a text of fewer
// shingles than bins) takes the value of the next filled bin to its right,
// shifted by the distance (densification by rotation, Shrivastava and Li
// 2014), so two texts still agree bin by bin with probability their
// Jaccard similarity. One hash per shingle instead of K makes signing
// about as fast as reading the text.
func Sign(text string) Signature { return SignWithParties(text, nil) }

// SignWithParties is Sign for a text whose parties' names are known (read by
// internal/names): the words of those names join its opening names, so a
// party named only once in the opening still tells two contracts apart.
// Ingest signs with Parties(names.Learn(…)): on the held-out constructed
// pairs this halved the party-swapped pairs called the same contract (8 of
// 61 → 4 of 61) and changed no other pair (docs/EVALUATION.md).
//
// The words are read one at a time, as Words splits them, and only the
// shingles' hashes are kept (8 bytes a word), so signing a long text costs
// little more memory than the text.
func SignWithParties(text string, parties []string) Signature {
	folded := fold(text)
	var sig Signature
	sig.Names, sig.Vocab = names(text, folded)
	known := map[uint64]bool{}
	for _, n := range sig.Names {
		known[n] = true
	}
	for _, p := range parties {
		for _, w := range Words(p) {
			if h := wordHash(w); len([]rune(w)) >= 3 && !known[h] && len(sig.Names) < maxNames {
				known[h] = true
				sig.Names = append(sig.Names, h)
			}
		}
	}
	for i := range sig.Mins {
		sig.Mins[i] = ^uint64(0)
	}
	// A shingle is five consecutive word hashes; a text of fewer words is
	// padded with zero hashes to one shingle.
	var ring [shingleWords]uint64
	n := 0
	var shingles []uint64
	add := func() {
		var s uint64 = 0x2545F4914F6CDD1D
		for k := range shingleWords {
			s = mix(s ^ ring[(n+k)%shingleWords])
		}
		shingles = append(shingles, s)
		bin, v := s>>(64-binBits), s&valueMask
		if v < sig.Mins[bin] {
			sig.Mins[bin] = v
		}
	}
	eachWord(folded, func(w string) {
		ring[n%shingleWords] = wordHash(w)
		n++
		if n >= shingleWords {
			// ring holds words n-5 … n-1, oldest at n%5.
			add()
		}
	})
	if n == 0 {
		return sig
	}
	if n < shingleWords {
		for k := n; k < shingleWords; k++ {
			ring[k] = 0
		}
		n = 0
		add()
	}
	slices.Sort(shingles)
	sig.Shingles = len(slices.Compact(shingles))
	// Densify: empty bins borrow from the next filled bin to the right.
	for i := range sig.Mins {
		if sig.Mins[i] != ^uint64(0) {
			continue
		}
		for j := 1; j < K; j++ {
			if v := sig.Mins[(i+j)%K]; v != ^uint64(0) && v <= valueMask {
				sig.Mins[i] = v + uint64(j)<<(64-binBits)
				break
			}
		}
	}
	return sig
}

// fold is the text as Words reads it: NFKC, lower case.
func fold(text string) string { return strings.ToLower(norm.NFKC.String(text)) }

// isWordRune says what Words keeps: letters and digits.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// eachWord calls f with the words of folded text in order, as Words
// splits them, without collecting them.
func eachWord(folded string, f func(w string)) {
	start := -1
	for i, r := range folded {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			f(folded[start:i])
			start = -1
		}
	}
	if start >= 0 {
		f(folded[start:])
	}
}

const (
	binBits   = 7 // K = 1 << binBits
	valueMask = 1<<(64-binBits) - 1
)

// Jaccard estimates the Jaccard similarity of the two texts' shingle sets.
func Jaccard(a, b Signature) float64 {
	if a.Shingles == 0 || b.Shingles == 0 {
		return 0
	}
	eq := 0
	for i := range a.Mins {
		if a.Mins[i] == b.Mins[i] {
			eq++
		}
	}
	return float64(eq) / K
}

// Containment estimates the share of the smaller text's shingles that the
// larger one holds: from the Jaccard estimate J and the set sizes,
// |A∩B| = J(|A|+|B|)/(1+J).
func Containment(a, b Signature) float64 {
	j := Jaccard(a, b)
	small := min(a.Shingles, b.Shingles)
	if small == 0 {
		return 0
	}
	inter := j * float64(a.Shingles+b.Shingles) / (1 + j)
	return min(1, inter/float64(small))
}

// Encode stores a signature as an artifact: a version byte, the shingle
// count, the K minima, the names and the vocabulary filter, little-endian.
func (s Signature) Encode() []byte {
	b := make([]byte, 0, 1+8+8*K+2+8*len(s.Names)+vocabBytes)
	b = append(b, 1)
	b = binary.LittleEndian.AppendUint64(b, uint64(s.Shingles))
	for _, m := range s.Mins {
		b = binary.LittleEndian.AppendUint64(b, m)
	}
	b = binary.LittleEndian.AppendUint16(b, uint16(len(s.Names)))
	for _, n := range s.Names {
		b = binary.LittleEndian.AppendUint64(b, n)
	}
	return append(b, s.Vocab[:]...)
}

// ErrBadSignature is returned for bytes that are not an encoded signature.
var ErrBadSignature = errors.New("not a family signature")

// Decode reads a signature written by Encode.
func Decode(b []byte) (Signature, error) {
	var s Signature
	if len(b) < 1+8+8*K+2 || b[0] != 1 {
		return s, ErrBadSignature
	}
	s.Shingles = int(binary.LittleEndian.Uint64(b[1:]))
	for i := range s.Mins {
		s.Mins[i] = binary.LittleEndian.Uint64(b[9+8*i:])
	}
	p := 9 + 8*K
	n := int(binary.LittleEndian.Uint16(b[p:]))
	p += 2
	if n > maxNames || len(b) != p+8*n+vocabBytes {
		return s, ErrBadSignature
	}
	for i := 0; i < n; i++ {
		s.Names = append(s.Names, binary.LittleEndian.Uint64(b[p+8*i:]))
	}
	copy(s.Vocab[:], b[p+8*n:])
	return s, nil
}

// wordHash is the 64-bit FNV-1a hash of w (hash/fnv's, without its
// allocations: it runs once per word of every document).
func wordHash(w string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(w); i++ {
		h ^= uint64(w[i])
		h *= 1099511628211
	}
	return h
}

func (s *Signature) addVocab(h uint64) {
	for k := uint64(0); k < vocabHashes; k++ {
		bit := mix(h+k*0x9E3779B97F4A7C15) % (vocabBytes * 8)
		s.Vocab[bit/8] |= 1 << (bit % 8)
	}
}

// HasWord reports whether the document may contain the word with hash h
// (a Bloom filter: false positives possible, false negatives not).
func (s *Signature) HasWord(h uint64) bool {
	for k := uint64(0); k < vocabHashes; k++ {
		bit := mix(h+k*0x9E3779B97F4A7C15) % (vocabBytes * 8)
		if s.Vocab[bit/8]&(1<<(bit%8)) == 0 {
			return false
		}
	}
	return true
}

// names finds the document's opening names and fills its vocabulary from
// the folded text's words. Only the opening's candidate names are counted,
// so a text of a million distinct words costs no map of them.
func names(text, folded string) ([]uint64, [vocabBytes]byte) {
	head := text
	if len(head) > preambleLen {
		head = head[:preambleLen]
	}
	fields := strings.FieldsFunc(head, func(r rune) bool {
		return unicode.IsSpace(r) || r == ',' || r == '(' || r == ')' || r == '"' || r == '“' || r == '”'
	})
	type cand struct {
		lw string
		k  int
	}
	var cands []cand
	count := map[string]int{}
	for k, f := range fields {
		w := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) })
		r := []rune(w)
		if len(r) < 3 || !unicode.IsUpper(r[0]) || strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
			continue
		}
		// A word next to a number is a date or an amount ("March 3",
		// "3 March 2021"), which a signed copy fills in: not a name.
		if k > 0 && hasDigit(fields[k-1]) || k+1 < len(fields) && hasDigit(fields[k+1]) {
			continue
		}
		lw := strings.ToLower(w)
		cands = append(cands, cand{lw, k})
		count[lw] = 0
	}
	var tmp Signature
	eachWord(folded, func(w string) {
		tmp.addVocab(wordHash(w))
		if c, ok := count[w]; ok {
			count[w] = c + 1
		}
	})
	seen := map[string]bool{}
	var out []uint64
	for _, c := range cands {
		if seen[c.lw] || count[c.lw] < nameRecurs {
			continue
		}
		seen[c.lw] = true
		out = append(out, wordHash(c.lw))
		if len(out) == maxNames {
			break
		}
	}
	return out, tmp.Vocab
}

func hasDigit(s string) bool { return strings.IndexFunc(s, unicode.IsDigit) >= 0 }

// DifferentParties reports whether two documents open with names the other
// never uses, both ways round: the mark of one template signed by
// different parties. A version of one contract keeps its parties' names.
func DifferentParties(a, b Signature) bool {
	private := func(x, y *Signature) bool {
		for _, n := range x.Names {
			if !y.HasWord(n) {
				return true
			}
		}
		return false
	}
	return private(&a, &b) && private(&b, &a)
}

// Member is one document offered to Group.
type Member struct {
	ID  string
	Sig *Signature // a pointer: a collection's signatures are not copied to be grouped
}

// Options set when two documents are one contract. The zero value means
// the defaults (DefaultJaccard, DefaultContainment).
type Options struct {
	Jaccard     float64
	Containment float64
}

// Defaults, chosen on the development pairs of docs/INGEST.md#same-contract
// (measured on held-out pairs there).
const (
	DefaultJaccard     = 0.5
	DefaultContainment = 0.8
)

// Pair is two documents found to be one contract, with their similarity.
type Pair struct {
	A, B        int // indexes into the members
	Jaccard     float64
	Containment float64
}

// Same reports whether two documents are one contract.
func (o Options) Same(a, b Member) (Pair, bool) {
	jt, ct := o.Jaccard, o.Containment
	if jt <= 0 {
		jt = DefaultJaccard
	}
	if ct <= 0 {
		ct = DefaultContainment
	}
	p := Pair{Jaccard: Jaccard(*a.Sig, *b.Sig), Containment: Containment(*a.Sig, *b.Sig)}
	// The containment estimate divides by the smaller set: it is only
	// meaningful once the two share a clear part of their shingles.
	contained := p.Jaccard >= minJaccardForContainment && min(a.Sig.Shingles, b.Sig.Shingles) >= 50 && p.Containment >= ct
	if p.Jaccard < jt && !contained {
		return p, false
	}
	if DifferentParties(*a.Sig, *b.Sig) {
		return p, false
	}
	return p, true
}

// maxBucket is how many members an LSH bucket holds: a bucket this full is
// boilerplate, and its members' pairs meet in other bands.
const maxBucket = 64

// bandOf is an LSH band: r minima from start.
type bandOf struct{ start, r int }

// minJaccardForContainment is where the containment estimate stops being
// noise: 26 equal minima of 128.
const minJaccardForContainment = 0.2

// Group returns the families of the members: groups of two or more member
// indexes, each sorted, largest first (then by first index), with the
// pairs that joined them. Members in no family are left out.
func Group(members []Member, o Options) ([][]int, []Pair) {
	n := len(members)
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	// LSH: 32 bands of 4 minima. Two texts with Jaccard J share a band
	// with probability 1-(1-J^4)^32: 0.87 at J=0.4, 0.98 at J=0.5. Pairs
	// that only clear the containment bar (a short document inside a long
	// one) have a low Jaccard; bands of 2 minima catch those.
	//
	// A pair is judged once, in the first band where it meets: a bucket
	// holds the first maxBucket members (by index) of its key, and each
	// member keeps, per band, its key and whether it was held, so a pair
	// met in band b is passed over when both were held together in an
	// earlier band. No set of the pairs judged is kept: a collection of
	// many near-copies (a template signed with a hundred counterparties)
	// meets millions of pairs, each in most of the 96 bands.
	var bands []bandOf
	for _, r := range []int{4, 2} {
		for band := 0; band+r <= K; band += r {
			bands = append(bands, bandOf{band, r})
		}
	}
	nb := len(bands)
	keys := make([]uint64, n*nb) // member i's key in band b: keys[i*nb+b]
	held := make([]bool, n*nb)   // whether member i was held in its bucket of band b
	var pairs []Pair
	for b, bd := range bands {
		buckets := map[uint64][]int{}
		for i, m := range members {
			if m.Sig.Shingles == 0 {
				continue
			}
			var h uint64 = uint64(bd.start)
			for _, v := range m.Sig.Mins[bd.start : bd.start+bd.r] {
				h = mix(h ^ v)
			}
			keys[i*nb+b] = h
			if len(buckets[h]) < maxBucket {
				buckets[h] = append(buckets[h], i)
				held[i*nb+b] = true
			}
		}
		for _, bk := range buckets {
			for x := 0; x < len(bk); x++ {
				i := bk[x]
			pair:
				for y := x + 1; y < len(bk); y++ {
					j := bk[y]
					for e := 0; e < b; e++ {
						if held[i*nb+e] && held[j*nb+e] && keys[i*nb+e] == keys[j*nb+e] {
							continue pair // judged in band e
						}
					}
					if p, ok := o.Same(members[i], members[j]); ok {
						p.A, p.B = i, j
						pairs = append(pairs, p)
						if a, b := find(i), find(j); a != b {
							parent[a] = b
						}
					}
				}
			}
		}
	}
	groups := map[int][]int{}
	for i := range members {
		groups[find(i)] = append(groups[find(i)], i)
	}
	var out [][]int
	for _, g := range groups {
		if len(g) > 1 {
			sort.Ints(g)
			out = append(out, g)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return out[i][0] < out[j][0]
	})
	sort.Slice(pairs, func(i, j int) bool {
		return pairs[i].A < pairs[j].A || pairs[i].A == pairs[j].A && pairs[i].B < pairs[j].B
	})
	return out, pairs
}

// Parties are the names of the parties internal/names read from a text,
// without their legal form where it knows one ("Fonterra", not "Fonterra
// (USA) Inc."): what SignWithParties takes.
func Parties(n learnt.Names) []string {
	var out []string
	for _, p := range n.Parties {
		out = append(out, cmp.Or(p.Core, p.Name))
	}
	return out
}
