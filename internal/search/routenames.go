package search

import (
	"slices"
	"sort"
	"strings"

	"github.com/pakton/pakton/internal/names"
	"github.com/pakton/pakton/internal/search/index"
)

// Routing by the names people use. Each document brings the names it was
// learnt to be called by at ingest (names.Learn: its parties' full and short
// names, their shortened forms and initials, its title, type, date, year,
// file name and folder). The index keeps them analyzed, and a question is
// matched against them word run by word run: "What law governs the Bravatek
// agreement?" holds "Bravatek", a form of one party of one contract.
//
// Why this is safe for questions that name no contract. A name only counts
// when it can name something: a single word must be written like a name in
// the question (a capital inside the sentence, all capitals, a digit) or be
// found in the text of hardly any contract but the ones it names, so
// "fitness for purpose" never routes to a contract with Fitness
// Publications, Inc.; a name that fits more than maxNameFit contracts (in
// a large collection more than one in familyShare), or more than half of
// the collection and four or more (the company on every contract of its
// own deal room), names none in particular.
// Types, dates and years ("the 2019 supply agreement") only narrow a name
// given with them; on their own they are left to the header router's title
// phrases (route.go), which read the file names too.

// nameRef is one name of a document: entry e of segment seg's names
// (index.NameEntry).
type nameRef struct {
	seg int
	e   int32
}

// entry returns the name entry r refers to.
func entry(v *index.Snapshot, r nameRef) index.NameEntry { return v.Segments()[r.seg].Names()[r.e] }

// nameDoc returns the snapshot's number of the document of name r.
func nameDoc(v *index.Snapshot, r nameRef) int32 { return v.DocBase(r.seg) + entry(v, r).Doc }

// hasNames reports whether any document of the snapshot has names.
func hasNames(v *index.Snapshot) bool {
	for _, s := range v.Segments() {
		if len(s.Names()) > 0 {
			return true
		}
	}
	return false
}

// maxNameFit is how many contracts a name may fit and still be said to
// name them (a company's handful of agreements); one that fits more names
// the company that is party to all of them, not a contract.
const maxNameFit = 10

// familyShare widens maxNameFit, and the header router's few close
// documents (routeMaxDocs), in a large collection: there a name may fit up
// to one contract in familyShare and still narrow the search to the
// contracts it fits. In a firm's estate of 50,000 contracts the
// counterparty of a hundred agreements (or a hundred agreements between
// the same parties) is not every contract's company: searching all 50,000
// would bring answers from contracts the question does not name, and cost
// a hundred times more. The search covers the contracts the name fits and
// asks which one is meant (RouteAmbiguous). Below familyShare×maxNameFit
// documents nothing changes.
const familyShare = 256

// nameFit is how many of a collection's n live documents a name may fit
// and still narrow the search to them.
func nameFit(n int) int { return max(maxNameFit, n/familyShare) }

// qword is one analyzed word of a question.
type qword struct {
	term string
	brk  bool // the first term of a part of the question (split at ; : ? ! and line breaks)
	// nameLike: written like a name — a capital inside the sentence (not
	// its first word), a capital inside the word, or a digit.
	nameLike   bool
	start, end int // bytes of the question
}

// analyzeWords analyzes a question part by part, like analyzeQuery, and
// says how each word was written and where it is.
func analyzeWords(text string) []qword {
	var out []qword
	partStart := 0
	brk := partBreaks(text)
	for i := 0; i <= len(text); i++ {
		if i < len(text) && !brk[i] {
			continue
		}
		part := text[partStart:i]
		first := true // the part's first word, stop word or not
		newPart := true
		prevStart, prevEnd := 0, 0
		index.ForEachWordAt(part, func(w string, at index.WordAt) {
			// A full stop before the word starts a sentence too, unless it
			// ends an abbreviation ("Dr. Murray").
			initial := first || strings.TrimSpace(part[prevEnd:at.Start]) == "." && prevEnd-prevStart > 3
			prevStart = at.Start
			first = false
			prevEnd = at.End
			if index.IsStopWord(w) {
				return
			}
			out = append(out, qword{
				term:     index.Stem(w),
				brk:      newPart,
				nameLike: at.Inner || index.HasDigit(w) || at.Capital && !initial,
				start:    partStart + at.Start, end: partStart + at.End,
			})
			newPart = false
		})
		partStart = i + 1
	}
	return out
}

// nameMatch is a run of question words that is a name of some documents.
type nameMatch struct {
	from, to int       // question words [from, to)
	entries  []nameRef // the names matched, of every document having one
	// entity: the documents the words name (a party, title, file name or
	// folder); qualifier: those they only describe (type, date, year);
	// role: those that define a party by them ("Franchisee").
	entity, qualifier, role []int32
}

// findNames returns every run of question words that is one of the
// documents' names, longest first; a run inside a longer one is dropped.
// Runs never cross a part of the question. Names of deleted documents are
// left out.
func (ix *Index) findNames(v *index.Snapshot, qs []qword, ids []int32) []nameMatch {
	var all []nameMatch
	local := make([]int32, len(ids))
	for si, seg := range v.Segments() {
		if len(seg.Names()) == 0 {
			continue
		}
		for i, t := range ids {
			local[i] = -1
			if t >= 0 {
				local[i] = v.Local(t, si)
			}
		}
		for i := range qs {
			if local[i] < 0 {
				continue
			}
			byLen := map[int][]nameRef{}
			// Names shared by many documents (a type, a title) are
			// compared with the question once.
			for _, g := range seg.NameGroupsStartingWith(local[i]) {
				n := len(g.Terms)
				if i+n > len(qs) || !slices.Equal(g.Terms, local[i:i+n]) {
					continue
				}
				ok := true
				for k := i + 1; k < i+n; k++ {
					ok = ok && !qs[k].brk
				}
				if !ok {
					continue
				}
				for _, ei := range g.Entries {
					if !v.Deleted(si, seg.Names()[ei].Doc) {
						byLen[n] = append(byLen[n], nameRef{si, ei})
					}
				}
			}
			for n, es := range byLen {
				all = appendMatch(v, all, nameMatch{from: i, to: i + n}, es)
			}
		}
	}
	// A run that matched names in several segments is one match.
	merged := all[:0]
	for _, m := range all {
		k := slices.IndexFunc(merged, func(o nameMatch) bool { return o.from == m.from && o.to == m.to })
		if k < 0 {
			merged = append(merged, m)
			continue
		}
		o := &merged[k]
		o.entries = append(o.entries, m.entries...)
		for _, d := range m.entity {
			o.entity = addDoc(o.entity, d)
		}
		for _, d := range m.qualifier {
			o.qualifier = addDoc(o.qualifier, d)
		}
		for _, d := range m.role {
			o.role = addDoc(o.role, d)
		}
	}
	all = merged
	sort.SliceStable(all, func(a, b int) bool {
		if la, lb := all[a].to-all[a].from, all[b].to-all[b].from; la != lb {
			return la > lb
		}
		return all[a].from < all[b].from
	})
	var out []nameMatch
	for _, m := range all {
		inside := false
		for _, o := range out {
			inside = inside || o.from <= m.from && m.to <= o.to
		}
		if !inside {
			out = append(out, m)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].from < out[b].from })
	return out
}

// appendMatch adds match m of names es, with the documents they name,
// qualify or give a role to.
func appendMatch(v *index.Snapshot, all []nameMatch, m nameMatch, es []nameRef) []nameMatch {
	m.entries = es
	for _, r := range es {
		d := nameDoc(v, r)
		switch k := names.Kind(entry(v, r).Kind); {
		case k.Names():
			m.entity = addDoc(m.entity, d)
		case k.Narrows():
			m.qualifier = addDoc(m.qualifier, d)
		case k == names.KindRole:
			m.role = addDoc(m.role, d)
		}
	}
	return append(all, m)
}

// addDoc inserts d into the sorted set ds.
func addDoc(ds []int32, d int32) []int32 {
	i, found := slices.BinarySearch(ds, d)
	if found {
		return ds
	}
	return slices.Insert(ds, i, d)
}

// intersect returns the documents in both sorted sets.
func intersect(a, b []int32) []int32 {
	var out []int32
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// bodyDocs counts the live documents whose text holds term tid, stopping
// once the count passes limit.
func bodyDocs(v *index.Snapshot, tid int32, limit int) int { return v.DocsWithTerm(tid, limit) }

// namesRoute is what the names of a question decide.
type namesRoute struct {
	decision RouteDecision
	docs     []int32 // the documents to search, in the order named
	groups   [][]int32
	matched  []nameMatch // the names that decided
	broad    []nameMatch // names that fit too many documents to name one
	unknown  []string    // what the question calls a contract that no document is called
}

// routeNames decides which documents a question names by the documents'
// names (see the comment at the top of this file). A question that holds no
// name yields RouteAll with nothing matched, and the header router
// (route.go) has its say.
func (ix *Index) routeNames(v *index.Snapshot, text string, qs []qword, ids []int32) namesRoute {
	res := namesRoute{decision: RouteAll}
	n := v.LiveDocs()
	if n < 2 || !hasNames(v) {
		return res
	}
	var entities, quals []nameMatch
	for _, m := range ix.findNames(v, qs, ids) {
		if len(m.role) >= max(2, len(m.entity)) {
			// A word other contracts define a party's role by ("the
			// Franchisee", "Licensee") names a role, whichever contract
			// took it for a party's name.
			continue
		}
		if len(m.entity) > 0 && namesSomething(v, qs, ids, m) {
			if len(m.entity) > nameFit(n) || 2*len(m.entity) > n && len(m.entity) >= 4 {
				res.broad = append(res.broad, m)
				continue
			}
			entities = append(entities, m)
		}
		if len(m.qualifier) > 0 {
			quals = append(quals, m)
		}
	}
	// A naming run that no learnt name covers may still name a contract by
	// words its opening holds ("our contract with Robbie Fowler", a party
	// the preamble reader missed); one that names none is said.
	for _, r := range namingRuns(text, qs) {
		covered, whole := false, false
		for _, e := range entities {
			covered = covered || e.from < r.to && r.from < e.to
			whole = whole || e.from <= r.from && r.to <= e.to
		}
		if whole {
			continue
		}
		docs := openingDocs(v, ids[r.from:r.to])
		if covered {
			// A name inside a longer one ("Rogers" in "John Rogers", "Zebra
			// Technologies" in "Zebra Technologies International"): the
			// whole run, when some opening holds it, says more.
			if len(docs) == 0 || len(docs) > nameFit(n) {
				continue
			}
			kept := entities[:0]
			for _, e := range entities {
				if !(r.from <= e.from && e.to <= r.to) {
					kept = append(kept, e)
				}
			}
			entities = kept
		}
		switch {
		case len(docs) == 0:
			res.unknown = append(res.unknown, strings.TrimSpace(text[qs[r.from].start:qs[r.to-1].end]))
		case len(docs) <= nameFit(n) && !(2*len(docs) > n && len(docs) >= 4):
			entities = append(entities, nameMatch{from: r.from, to: r.to, entity: docs})
		}
	}
	var groups [][]int32
	var used []nameMatch
	switch {
	case len(entities) > 0:
		all := entities[0].entity
		for _, e := range entities[1:] {
			all = intersect(all, e.entity)
		}
		if len(all) > 0 {
			// "the agreement between Acme and Beta": one contract of both
			groups = [][]int32{all}
		} else {
			// "compare the Acme and Beta caps": a contract of each
			for _, e := range entities {
				groups = append(groups, e.entity)
			}
		}
		used = append(used, entities...)
		for _, q := range quals {
			hit := false
			for gi, g := range groups {
				if x := intersect(g, q.qualifier); len(x) > 0 {
					groups[gi] = x
					hit = true
				}
			}
			if hit {
				used = append(used, q)
			}
		}
	default:
		if len(res.unknown) > 0 {
			res.decision = RouteUnknown
		}
		return res
	}
	seen := map[int32]bool{}
	ambiguous := false
	for _, g := range groups {
		ambiguous = ambiguous || len(g) > 1
		for _, d := range g {
			if !seen[d] {
				seen[d] = true
				res.docs = append(res.docs, d)
			}
		}
	}
	res.groups, res.matched = groups, used
	switch {
	case ambiguous:
		res.decision = RouteAmbiguous
	case len(res.docs) > 1:
		res.decision = RouteSeveral
	default:
		res.decision = RouteNamed
	}
	return res
}

// namesSomething reports whether a run of question words that is an
// entity's name can be meant as one. A run of three words or more always
// can. Otherwise the run's rarest word is counted in the text of the
// collection: written like a name in the question, it may be found in a few
// other documents too (max(4 per document named + 4, one document in
// fifteen): "Impresse" shares its stem with "impression"); written in lower
// case, in hardly any other. A run of two words each written like a name
// that is a party's name, core or short name, a title, file name or folder
// ("Clear Capital", "World Book") is a name however common its words are;
// a party name's leading words ("American Express") need the rare word.
func namesSomething(v *index.Snapshot, qs []qword, ids []int32, m nameMatch) bool {
	if m.to-m.from >= 3 {
		return true
	}
	all, any := true, false
	for k := m.from; k < m.to; k++ {
		all = all && qs[k].nameLike
		any = any || qs[k].nameLike
	}
	if all && m.to-m.from >= 2 {
		for _, r := range m.entries {
			if k := names.Kind(entry(v, r).Kind); k.Names() && k != names.KindLead {
				return true
			}
		}
	}
	fit := len(m.entity)
	limit := fit + 1
	if any {
		limit = max(4*fit+4, v.LiveDocs()/15)
	}
	for k := m.from; k < m.to; k++ {
		if bodyDocs(v, ids[k], limit) <= limit {
			return true // the rarest word is rare enough
		}
	}
	return false
}

// matchHasKind reports whether some entry of m is a name of kind k.
func matchHasKind(v *index.Snapshot, m nameMatch, k names.Kind) bool {
	for _, r := range m.entries {
		if names.Kind(entry(v, r).Kind) == k {
			return true
		}
	}
	return false
}

// namingRun is a run of question words written like a name where a
// question names a contract: right before a word titles use for a kind of
// document ("the Zenith agreement") or after "with" or "between" ("our
// contract with Zenith Labs").
type namingRun struct{ from, to int }

// namingRuns returns the question's naming runs (not the first word of a
// sentence, which any word may start with a capital).
func namingRuns(text string, qs []qword) []namingRun {
	var out []namingRun
	for i := 0; i < len(qs); {
		if !qs[i].nameLike || isTypeTerm(qs[i].term) {
			i++
			continue
		}
		j := i
		for j < len(qs) && qs[j].nameLike && !isTypeTerm(qs[j].term) && (j == i || !qs[j].brk && !listBreak(text[qs[j-1].end:qs[j].start])) {
			j++
		}
		after := ""
		if j < len(qs) && !qs[j].brk {
			after = qs[j].term
		}
		before := strings.ToLower(lastWord(text[:qs[i].start]))
		if isTypeTerm(after) || before == "with" || before == "between" {
			out = append(out, namingRun{i, j})
		}
		i = j
	}
	return out
}

// listBreak reports whether the text between two words separates two
// names ("Acme and Zenith", "Acme, Zenith") rather than joining one
// ("Fruit of Life", "Marshall & Ilsley").
func listBreak(between string) bool {
	b := " " + strings.ToLower(between) + " "
	return strings.Contains(b, " and ") || strings.Contains(b, " or ") || strings.Contains(b, "/")
}

// openingDocs returns the documents whose file name, title, parties or
// opening text hold every one of terms (the header router's postings,
// route.go), sorted; nil when a term is in none.
func openingDocs(v *index.Snapshot, terms []int32) []int32 {
	return docsWithEvery(v, terms, func(p index.RoutePosting) bool { return p.Name == 1 })
}

// docsWithEvery returns the documents that hold every one of terms in a
// route posting keep accepts, sorted; nil when a term is in none.
func docsWithEvery(v *index.Snapshot, terms []int32, keep func(index.RoutePosting) bool) []int32 {
	var out []int32
	for i, tid := range terms {
		if tid < 0 {
			return nil
		}
		var ds []int32
		eachRoutePosting(v, tid, func(d int32, p index.RoutePosting, _ *index.Segment) {
			if keep(p) {
				ds = append(ds, d)
			}
		})
		if i == 0 {
			out = ds
		} else {
			out = intersect(out, ds)
		}
		if len(out) == 0 {
			return nil
		}
	}
	return out
}

// isTypeTerm reports an analyzed word titles use for a kind of document.
func isTypeTerm(term string) bool {
	for _, w := range names.TypeWords {
		if !strings.Contains(w, " ") && index.Stem(w) == term {
			return true
		}
	}
	return false
}

// lastWord returns the last word of s.
func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return strings.Trim(f[len(f)-1], ",.;:()\"“”'")
}
