package search

import (
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/names"
	"github.com/pakton/pakton/internal/search/index"
)

// Names people mistype. A question that calls a contract by a name no
// contract goes by — "the Slicon agreement", "our contract with
// VivintSolar", "the MBRK deal" — is read against the names the contracts
// were learnt to be called by, letters only (case, spaces and punctuation
// ignored): a name written together ("VivintSolar" is "Vivint Solar"), its
// initials ("BFGI" for "Birch First Global Investments"), or a spelling a
// letter or two away ("Slicon" for "Silicon", "Pifzer" for "Pfizer": one
// edit for a name of four to seven letters, two from eight) names the
// contracts of the nearest such name. The route says so ("No contract is
// called “Slicon”; the nearest name is “Silicon Valley Bank”"), so the
// answer is never silently from another contract. A name nearest to none
// within those bounds is said unknown, with the contracts whose names are
// nearest offered instead (Route.Nearest: "did you mean …?").
//
// Why this is safe for questions that name no contract: it runs only when
// neither the learnt names nor the header router narrowed the search, and
// only on the question's runs of words written like a name that either
// call a contract by an unknown name ("the Zenith agreement", "our contract
// with Zenith") or hold a word no document of the collection has.

// maxNearest is how many contracts a name that fits none offers instead.
const maxNearest = 5

// nearRun is a run of question words that may be a mistyped name.
type nearRun struct {
	from, to int
	text     string // as the question writes it
}

// nearMatch is the name a run is read as.
type nearMatch struct {
	run   nearRun
	dist  int
	entry nameRef
	docs  []int32
}

// nearRuns returns the runs of the question to read as mistyped names:
// the naming runs no document is called by, and the runs of words written
// like a name that hold a word the collection does not have.
func nearRuns(v *index.Snapshot, text string, qs []qword, ids []int32, unknown []string) []nearRun {
	var out []nearRun
	add := func(from, to int) {
		if from >= to {
			return
		}
		for _, r := range out {
			if r.from == from && r.to == to {
				return
			}
		}
		out = append(out, nearRun{from, to, strings.TrimSpace(text[qs[from].start:qs[to-1].end])})
	}
	for _, r := range namingRuns(text, qs) {
		t := strings.TrimSpace(text[qs[r.from].start:qs[r.to-1].end])
		if slices.Contains(unknown, t) {
			add(r.from, r.to)
		}
	}
	for i := 0; i < len(qs); {
		if !qs[i].nameLike || isTypeTerm(qs[i].term) {
			i++
			continue
		}
		j := i + 1
		for j < len(qs) && qs[j].nameLike && !isTypeTerm(qs[j].term) && !qs[j].brk && !listBreak(text[qs[j-1].end:qs[j].start]) {
			j++
		}
		for k := i; k < j; k++ {
			if !liveTerm(v, ids[k]) {
				add(i, j)
				break
			}
		}
		i = j
	}
	return out
}

// liveTerm reports whether term t is in some live document.
func liveTerm(v *index.Snapshot, t int32) bool { return t >= 0 && bodyDocs(v, t, 1) > 0 }

// sameDigits reports whether two names hold the same digits in the same
// order: "Acme12" is not a misspelt "Acme1", nor "Fund 3" "Fund 2".
func sameDigits(a, b string) bool {
	digits := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsDigit(r) {
				return r
			}
			return -1
		}, s)
	}
	return digits(a) == digits(b)
}

// squash folds a name to its letters and digits, lower case.
func squash(s string) string { return strings.ReplaceAll(names.Key(s), " ", "") }

// initialsOf returns the initials of a name's words (its small joining
// words left out, and its legal form kept: "GLS LLC" is "GL").
func initialsOf(s string) string {
	var b strings.Builder
	for _, w := range strings.Fields(names.Key(s)) {
		switch w {
		case "of", "and", "the", "for", "de", "a":
			continue
		}
		r, _ := utf8.DecodeRuneInString(w)
		b.WriteRune(r)
	}
	return b.String()
}

// nearBound is how many edits a name of n letters may be from the name it
// is read as.
func nearBound(n int) int {
	switch {
	case n >= 8:
		return 2
	case n >= 4:
		return 1
	}
	return 0
}

// nearKind reports the kinds of names a mistyped name is read against:
// those that name a contract by its parties or title.
func nearKind(k names.Kind) bool {
	switch k {
	case names.KindParty, names.KindShort, names.KindForm, names.KindLead, names.KindAcronym, names.KindTitle:
		return true
	}
	return false
}

// routeNear reads the question's unknown names as mistyped names of the
// collection's contracts. It returns the match that names the fewest
// contracts, if any does, and, for a question whose names fit none, the
// contracts whose names are nearest (at most maxNearest).
func (ix *Index) routeNear(v *index.Snapshot, text string, qs []qword, ids []int32, unknown []string) (best *nearMatch, nearest []int32) {
	runs := nearRuns(v, text, qs, ids, unknown)
	if len(runs) == 0 || v.LiveDocs() < 2 {
		return nil, nil
	}
	type cand struct {
		key      string
		initials bool // a word in capitals that may be initials
	}
	cands := make([]cand, len(runs))
	for i, r := range runs {
		cands[i].key = squash(r.text)
		letters := []rune(strings.Join(strings.Fields(r.text), ""))
		cands[i].initials = r.to-r.from == 1 && len(letters) >= 2 && len(letters) <= 6 && strings.ToUpper(string(letters)) == string(letters)
	}
	type scored struct {
		dist int
		ref  nameRef
		run  int
	}
	var hits []scored
	closest := map[int32]int{} // document → its nearest distance, for "did you mean"
	for si, seg := range v.Segments() {
		ents := seg.Names()
		for ei, e := range ents {
			if !nearKind(names.Kind(e.Kind)) || v.Deleted(si, e.Doc) {
				continue
			}
			name := seg.NameText(e)
			nk := squash(name)
			if nk == "" {
				continue
			}
			var ini string
			d := v.DocBase(si) + e.Doc
			for ri, c := range cands {
				dist := -1
				switch {
				case c.key == nk:
					dist = 0
				case c.initials:
					if ini == "" {
						ini = initialsOf(name)
					}
					if len(ini) >= 2 && ini == c.key {
						dist = 0
					}
				}
				if dist < 0 {
					b := nearBound(utf8.RuneCountInString(c.key))
					if b > 0 && sameDigits(c.key, nk) {
						if x := editDistance(c.key, nk, b); x <= b {
							dist = x
						}
					}
				}
				if dist >= 0 {
					hits = append(hits, scored{dist, nameRef{si, int32(ei)}, ri})
				}
				if x := nearness(runs[ri].text, name); x >= 0 {
					if old, ok := closest[d]; !ok || x < old {
						closest[d] = x
					}
				}
			}
		}
	}
	n := v.LiveDocs()
	// The nearest matches of each run, the run with the fewest contracts
	// first.
	for ri, r := range runs {
		bestDist := -1
		for _, h := range hits {
			if h.run == ri && (bestDist < 0 || h.dist < bestDist) {
				bestDist = h.dist
			}
		}
		if bestDist < 0 {
			continue
		}
		m := nearMatch{run: r, dist: bestDist}
		set := false
		for _, h := range hits {
			if h.run == ri && h.dist == bestDist {
				m.docs = addDoc(m.docs, nameDoc(v, h.ref))
				if !set {
					m.entry, set = h.ref, true
				}
			}
		}
		if len(m.docs) > nameFit(n) || 2*len(m.docs) > n && len(m.docs) >= 4 {
			continue
		}
		if best == nil || len(m.docs) < len(best.docs) || len(m.docs) == len(best.docs) && m.dist < best.dist {
			mm := m
			best = &mm
		}
	}
	if best == nil {
		// Names the learner did not read (a party the preamble reader
		// missed) are still in the contracts' openings.
		for _, r := range runs {
			if m := openingNear(v, text, qs, ids, r); m != nil && (best == nil || len(m.docs) < len(best.docs)) {
				best = m
			}
		}
	}
	if best != nil {
		return best, nil
	}
	// Nothing near enough: the contracts whose names are nearest.
	type dd struct {
		d    int32
		dist int
	}
	var all []dd
	for d, x := range closest {
		all = append(all, dd{d, x})
	}
	sort.Slice(all, func(a, b int) bool {
		if all[a].dist != all[b].dist {
			return all[a].dist < all[b].dist
		}
		return all[a].d < all[b].d
	})
	for _, x := range all[:min(len(all), maxNearest)] {
		nearest = append(nearest, x.d)
	}
	return nil, nearest
}

// nearness scores how near a typed name is to a name, for offering the
// nearest names when none is near enough to be read as the typed one: the
// fewest edits between the typed name and the name's beginning of the same
// length (so "Slicon" is near "Silicon Valley Bank"), or between a word of
// each ("Curoz Holdings" is near "Curo Financial Technologies"); -1 when
// more than a third of the letters differ.
func nearness(typed, name string) int {
	best := -1
	try := func(a, b string) {
		ar, br := []rune(a), []rune(b)
		if len(ar) < 3 || len(br) < 3 {
			return
		}
		if len(br) > len(ar)+1 {
			br = br[:len(ar)+1]
		}
		limit := max(1, len(ar)/3)
		if x := editDistance(a, string(br), limit); x <= limit && (best < 0 || x < best) {
			best = x
		}
	}
	try(squash(typed), squash(name))
	for _, a := range strings.Fields(names.Key(typed)) {
		for _, b := range strings.Fields(names.Key(name)) {
			try(a, b)
		}
	}
	return best
}

// editDistance returns the edits (insertions, deletions, substitutions and
// swaps of two neighbouring letters) between a and b, or limit+1 once it
// is sure to exceed limit.
func editDistance(a, b string, limit int) int {
	ar, br := []rune(a), []rune(b)
	if d := len(ar) - len(br); d > limit || -d > limit {
		return limit + 1
	}
	prev2 := make([]int, len(br)+1)
	prev := make([]int, len(br)+1)
	cur := make([]int, len(br)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ar); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(br); j++ {
			cost := 1
			if unicode.ToLower(ar[i-1]) == unicode.ToLower(br[j-1]) {
				cost = 0
			}
			c := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ar[i-1] == br[j-2] && ar[i-2] == br[j-1] {
				c = min(c, prev2[j-2]+1)
			}
			cur[j] = c
			rowMin = min(rowMin, c)
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(br)]
}

// openingNear reads a run as words of the contracts' file names, titles and
// parties (the header router's title postings), or else of their openings,
// written
// together ("VirtuosoSurgical": its capitals, or the words of the
// collection it splits into) or misspelt ("Vrtuoso Surgical": a word the
// collection does not have, a letter or two from one an opening has). It
// returns the reading whose words are all in the openings of at most
// nameFit contracts, the fewest edits first; nil when none is.
func openingNear(v *index.Snapshot, text string, qs []qword, ids []int32, r nearRun) *nearMatch {
	if m := headerNear(v, text, qs, ids, r, true); m != nil {
		return m
	}
	return headerNear(v, text, qs, ids, r, false)
}

// headerNear is openingNear on the title postings (title) or on every
// posting of the openings.
func headerNear(v *index.Snapshot, text string, qs []qword, ids []int32, r nearRun, title bool) *nearMatch {
	n := v.LiveDocs()
	fits := func(docs []int32) bool {
		return len(docs) > 0 && len(docs) <= nameFit(n) && !(2*len(docs) > n && len(docs) >= 4)
	}
	var best *nearMatch
	try := func(terms []int32, dist int) {
		if len(terms) == 0 || best != nil && best.dist <= dist {
			return
		}
		docs := titleDocs(v, terms)
		if !title {
			docs = openingDocs(v, terms)
		}
		if fits(docs) {
			best = &nearMatch{run: r, dist: dist, docs: docs, entry: nameRef{seg: -1}}
		}
	}
	// Written together: one word of the question that is several.
	if r.to-r.from == 1 {
		w := text[qs[r.from].start:qs[r.from].end]
		if parts := humps(w); len(parts) > 1 {
			if ts, ok := lookupAll(v, parts); ok {
				try(ts, 0)
			}
		}
		if best == nil {
			if ts := splitKnown(v, strings.ToLower(w)); len(ts) > 1 {
				try(ts, 0)
			}
		}
		if best != nil {
			return best
		}
	}
	// Misspelt: each word the collection does not have, read as the
	// nearest words of file names, titles and parties.
	terms := slices.Clone(ids[r.from:r.to])
	var unknown []int
	for k, t := range terms {
		if !liveTerm(v, t) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 || len(unknown) > 2 {
		return nil
	}
	choices := make([][]nearTerm, len(unknown))
	for i, k := range unknown {
		choices[i] = nearTerms(v, qs[r.from+k].term, title)
		if len(choices[i]) == 0 {
			return nil
		}
	}
	var walk func(i, dist int)
	walk = func(i, dist int) {
		if i == len(unknown) {
			try(slices.Clone(terms), dist)
			return
		}
		for _, c := range choices[i] {
			terms[unknown[i]] = c.t
			walk(i+1, dist+c.dist)
		}
	}
	walk(0, 0)
	return best
}

// nearTerm is a term of the collection near a word it does not have.
type nearTerm struct {
	t    int32
	dist int
}

// maxNearTerms bounds the readings of one misspelt word.
const maxNearTerms = 8

// nearTerms returns the collection's terms that some file name, title or
// parties hold within
// nearBound edits of term, nearest first (at most maxNearTerms).
func nearTerms(v *index.Snapshot, term string, title bool) []nearTerm {
	b := nearBound(utf8.RuneCountInString(term))
	if b == 0 {
		return nil
	}
	var out []nearTerm
	for t, nt := int32(0), int32(v.NumTerms()); t < nt; t++ {
		s := v.TermString(t)
		if d := len(s) - len(term); d > b || -d > b || s == "" || s[0] != term[0] && (len(s) < 2 || len(term) < 2 || s[0] != term[1] || s[1] != term[0]) {
			continue // people seldom mistype a name's first letter
		}
		dist := editDistance(term, s, b)
		if dist > b || !sameDigits(term, s) {
			continue
		}
		inOpening := false
		eachRoutePosting(v, t, func(_ int32, p index.RoutePosting, _ *index.Segment) {
			inOpening = inOpening || p.Title == 1 || !title && p.Name == 1
		})
		if inOpening {
			out = append(out, nearTerm{t, dist})
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].dist < out[b].dist })
	return out[:min(len(out), maxNearTerms)]
}

// humps splits a word at its capitals ("VirtuosoSurgical" → "Virtuoso",
// "Surgical"; "JOHNRogers" → "JOHN", "Rogers").
func humps(w string) []string {
	rs := []rune(w)
	var out []string
	start := 0
	for i := 1; i < len(rs); i++ {
		up, prevUp := unicode.IsUpper(rs[i]), unicode.IsUpper(rs[i-1])
		nextLow := i+1 < len(rs) && unicode.IsLower(rs[i+1])
		if up && (!prevUp || nextLow) {
			out = append(out, string(rs[start:i]))
			start = i
		}
	}
	return append(out, string(rs[start:]))
}

// lookupAll returns the terms of words, false when the collection lacks
// one.
func lookupAll(v *index.Snapshot, words []string) ([]int32, bool) {
	var out []int32
	for _, w := range words {
		ts := index.Analyze(w)
		if len(ts) == 0 {
			continue // a stop word ("and")
		}
		for _, t := range ts {
			id, ok := v.Lookup(t)
			if !ok {
				return nil, false
			}
			out = append(out, id)
		}
	}
	return out, len(out) > 0
}

// splitKnown splits a word written without spaces into the fewest words
// of three letters or more (or stop words) the collection has
// ("miltenyiandbellicum" → "miltenyi", "bellicum"); nil when it cannot.
func splitKnown(v *index.Snapshot, w string) []int32 {
	if len(w) > 60 || !utf8.ValidString(w) {
		return nil
	}
	type step struct {
		prev  int
		terms []int32
		ok    bool
		n     int
	}
	dp := make([]step, len(w)+1)
	dp[0].ok = true
	for i := 0; i < len(w); i++ {
		if !dp[i].ok {
			continue
		}
		for j := i + 1; j <= len(w); j++ {
			part := w[i:j]
			var ts []int32
			if index.IsStopWord(part) {
				ts = []int32{}
			} else {
				if j-i < 3 {
					continue
				}
				as := index.Analyze(part)
				if len(as) != 1 {
					continue
				}
				id, ok := v.Lookup(as[0])
				if !ok {
					continue
				}
				ts = []int32{id}
			}
			if !dp[j].ok || dp[i].n+1 < dp[j].n {
				dp[j] = step{prev: i, terms: ts, ok: true, n: dp[i].n + 1}
			}
		}
	}
	if !dp[len(w)].ok {
		return nil
	}
	var out []int32
	for j := len(w); j > 0; j = dp[j].prev {
		out = append(dp[j].terms, out...)
	}
	return out
}

// titleDocs returns the documents whose file name, title or parties hold
// every one of terms (the header router's title postings), sorted; nil
// when a term is in none.
func titleDocs(v *index.Snapshot, terms []int32) []int32 {
	return docsWithEvery(v, terms, func(p index.RoutePosting) bool { return p.Title == 1 })
}
