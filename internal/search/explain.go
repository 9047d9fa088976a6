package search

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/pakton/pakton/internal/search/index"
)

// Explain is a search's plan as it ran, stage by stage, for a person to
// read (Query.Explain; pakton search --explain, the API's "explain": true):
// which documents were searched and why, the words dropped and why, the
// words searched with their weights, the words added and from what, the
// provision asked about and what its detectors found, how the rankings were
// fused, and how each hit's score was made. Every stage that was tuned on a
// development set is listed in Stages with the switch that turns it off, so
// an ablation is a flag, not a patch. Asking for it changes no hit.
type Explain struct {
	Question string `json:"question"`
	// Route is the first stage (Plan): the documents searched and why.
	Route Route `json:"route"`
	// Framing are the question's words left out because they frame the
	// question ("does this contract mention …"), each with why.
	Framing []FramingWord `json:"framing,omitempty"`
	// Terms are the words searched with (stems) and their weights: 1, and
	// more for a word the question repeats; a word no document uses is
	// listed with weight 0.
	Terms []TermWeight `json:"terms"`
	// Expansions are the words added to the question, each from the word
	// that brought it, with its weight.
	Expansions []Expansion `json:"expansions,omitempty"`
	// Learned are the words a model learnt from labelled questions added
	// (Query.Learned), with their weights.
	Learned []Weighted `json:"learned,omitempty"`
	// Provisions says which playbook provisions the question asks about and
	// what the review detectors found (SearchWith with a ProvisionFinder).
	Provisions *ProvisionStage `json:"provisions,omitempty"`
	// Fusion says how the lexical ranking was combined with others.
	Fusion Fusion `json:"fusion"`
	// Hits say how each returned passage's score was made.
	Hits []HitScore `json:"hits"`
	// Stages lists every stage, whether it ran and the switch that turns
	// it off.
	Stages []Stage `json:"stages"`

	expansions map[expKey]int // index in Expansions
	lexical    []HitScore     // Hits as the lexical ranking made them
}

// FramingWord is a question word left out as framing.
type FramingWord struct {
	Word string `json:"word"`
	Why  string `json:"why"`
}

// TermWeight is a word searched with.
type TermWeight struct {
	Word   string  `json:"word"`
	Weight float64 `json:"weight"`
}

// Expansion is a word added to the question.
type Expansion struct {
	From   string  `json:"from"` // the question's word that brought it
	Word   string  `json:"word"`
	Weight float64 `json:"weight"`
	// Kind is "association" (the words co-occur in the collection's
	// passages far more than chance: expand.go) or "heading" (a body word
	// of the clauses the question word heads: headings.go).
	Kind string `json:"kind"`
}

type expKey struct {
	from, to int32
	heading  bool
}

// ProvisionStage is what the review detectors did for a question.
type ProvisionStage struct {
	// Matches are the provisions the question's words are closest to, best
	// first, with the matcher's score (a cosine) and lead over the next;
	// Asked says which the question was taken to ask about.
	Matches []ProvisionMatch `json:"matches,omitempty"`
	// Docs are the documents the detectors looked in (the search's scope);
	// none when the search was not narrowed to at most MaxProvisionDocs.
	Docs []string `json:"docs,omitempty"`
	// Found are the passages the detectors put first, with their
	// confidence; NotFound the documents where they found nothing.
	Found    []Hit     `json:"found,omitempty"`
	NotFound []Absence `json:"not_found,omitempty"`
	// Why says it in a sentence.
	Why string `json:"why"`
}

// ProvisionMatch is how close a question is to a provision's profile.
type ProvisionMatch struct {
	Provision string  `json:"provision"`
	Score     float64 `json:"score"`
	Lead      float64 `json:"lead"` // over the next provision
	Asked     bool    `json:"asked"`
}

// Fusion says how the rankings were combined.
type Fusion struct {
	// Dense is set when the lexical ranking was fused with exact cosine
	// search over the question's embedding (reciprocal rank fusion).
	Dense bool `json:"dense"`
	// Rerank is set when a cross-encoder reordered the best RerankDepth
	// passages.
	Rerank      bool `json:"rerank"`
	RerankDepth int  `json:"rerank_depth,omitempty"`
	// Fill is set when the search, narrowed to some documents, filled up to
	// k with the text around the best match (passages that match no word).
	Fill bool `json:"fill"`
}

// HitScore is how one hit's score was made.
type HitScore struct {
	Rank      int     `json:"rank"`
	DocID     string  `json:"doc_id"`
	Start     int     `json:"start"`
	End       int     `json:"end"`
	Score     float64 `json:"score"`
	View      string  `json:"view"`
	Provision string  `json:"provision,omitempty"`
	// Terms are the BM25 contributions of the words the passage's unit
	// matched (question words and added ones), largest first; they add up
	// to its lexical score.
	Terms []TermScore `json:"terms,omitempty"`
	// Why says it in a sentence.
	Why string `json:"why"`
}

// TermScore is one word's part of a hit's lexical score.
type TermScore struct {
	Word  string  `json:"word"`
	Score float64 `json:"score"`
}

// Stage is a stage of the plan and its switch.
type Stage struct {
	Name string `json:"name"`
	On   bool   `json:"on"`
	// Switch is the query field that turns it off (search.Query; the same
	// name, lower-cased with underscores, in the API and the CLI's flags).
	Switch string `json:"switch"`
}

func newExplain(p *Plan) *Explain {
	q := p.Query
	ex := &Explain{Question: q.Text, Route: p.Route, Terms: []TermWeight{}, Hits: []HitScore{}, expansions: map[expKey]int{}}
	ex.Stages = []Stage{
		{"routing: search only the contracts the question names", !q.NoRoute && len(q.Docs) == 0, "NoRoute"},
		{"framing: leave out the words the question frames itself with", !q.NoFraming, "NoFraming"},
		{"associations: add the words that co-occur with a question word", !q.NoAssociations, "NoAssociations"},
		{"headings: add the body words of the clauses a question word heads", !q.NoHeadings, "NoHeadings"},
		{"provisions: put first the passage the review detectors find for a provision asked about", !q.NoProvisions, "NoProvisions"},
		{"spread: put no passage first for a provision that pervades the contract (more than 4 of its passages, or a tenth of them, rated near the best)", !q.NoProvisions && !q.NoSpread, "NoSpread"},
		{"fill: in a narrowed search, fill up to k with the text around the best match", !q.NoFill, "NoFill"},
	}
	return ex
}

// The note methods record a stage; on a nil Explain (not asked for) they
// do nothing, so the search's path is the same either way.

func (ex *Explain) noteFraming(terms, kept []string, framing map[string]string) {
	if ex == nil {
		return
	}
	if len(kept) == len(terms) {
		return
	}
	for _, t := range terms {
		if why, ok := framing[t]; ok && !slices.ContainsFunc(ex.Framing, func(f FramingWord) bool { return f.Word == t }) {
			ex.Framing = append(ex.Framing, FramingWord{t, why})
		}
	}
}

func (ex *Explain) noteTerms(v *index.Snapshot, qt []queryTerm, kept []string) {
	if ex == nil {
		return
	}
	for _, t := range qt {
		ex.Terms = append(ex.Terms, TermWeight{v.TermString(t.id), t.weight})
	}
	for _, t := range kept {
		if _, ok := v.Lookup(t); !ok {
			ex.Terms = append(ex.Terms, TermWeight{t, 0})
		}
	}
}

func (ex *Explain) noteExpansion(v *index.Snapshot, from, to int32, w float64, heading bool) {
	if ex == nil {
		return
	}
	k := expKey{from, to, heading}
	if i, ok := ex.expansions[k]; ok {
		ex.Expansions[i].Weight += w
		return
	}
	kind := "association"
	if heading {
		kind = "heading"
	}
	ex.expansions[k] = len(ex.Expansions)
	ex.Expansions = append(ex.Expansions, Expansion{From: v.TermString(from), Word: v.TermString(to), Weight: w, Kind: kind})
}

// explainHits says how each hit's score was made: the BM25 contribution of
// every query term to the unit it came from, scored over the same scope.
// A hit came from the best-ranked unit whose span holds it (collect takes
// the ranked units in order, and a span an earlier unit held is taken).
func (ix *Index) explainHits(v *index.Snapshot, ex *Explain, qt []queryTerm, sc scope, ranked []scored, hits []Hit, fill, dense bool) {
	ex.Fusion.Fill, ex.Fusion.Dense = fill, dense
	unitOf := make([]int32, len(hits))
	want := map[int32]bool{}
	for i, h := range hits {
		unitOf[i] = -1
		for _, s := range ranked {
			if holds(v, s.unit, h) {
				unitOf[i] = s.unit
				want[s.unit] = true
				break
			}
		}
	}
	contrib := map[int32][]TermScore{}
	ranges := sc.ranges
	if ranges == nil {
		ranges = allRanges(v)
	}
	for _, t := range qt {
		acc := ix.getAcc(ranges)
		ix.score(v, acc, []queryTerm{t}, sc)
		acc.each(func(u int32, s float64) {
			if want[u] {
				contrib[u] = append(contrib[u], TermScore{v.TermString(t.id), s})
			}
		})
		ix.putAcc(acc)
	}
	for i, h := range hits {
		hs := HitScore{Rank: h.Rank, DocID: h.DocID, Start: h.Span.Start, End: h.Span.End, Score: h.Score, View: h.View.String()}
		if u := unitOf[i]; u >= 0 {
			hs.Terms = contrib[u]
			sort.SliceStable(hs.Terms, func(a, b int) bool { return hs.Terms[a].Score > hs.Terms[b].Score })
		}
		hs.Why = hitWhy(hs, dense)
		ex.Hits = append(ex.Hits, hs)
	}
}

// holds reports whether one of unit u's spans holds h's span.
func holds(v *index.Snapshot, u int32, h Hit) bool {
	i, lu := v.SegmentOfUnit(u)
	seg := v.Segments()[i]
	units := seg.Units()
	if uint(lu) >= uint(len(units)) || uint(units[lu].Doc) >= uint(seg.NumDocs()) || seg.DocID(units[lu].Doc) != h.DocID {
		return false
	}
	for _, sp := range seg.UnitSpans(lu) {
		if int(sp.Start) <= h.Span.Start && h.Span.End <= int(sp.End) {
			return true
		}
	}
	return false
}

func hitWhy(hs HitScore, dense bool) string {
	switch {
	case len(hs.Terms) == 0 && fillView(hs):
		return "matches no word of the question: text around the best match, to fill the narrowed search up to k"
	case len(hs.Terms) == 0:
		return "matches no word of the question"
	}
	var parts []string
	for _, t := range hs.Terms[:min(len(hs.Terms), 4)] {
		parts = append(parts, fmt.Sprintf("%s %.2f", t.Word, t.Score))
	}
	s := fmt.Sprintf("BM25 over its %s view: %s", hs.View, strings.Join(parts, ", "))
	if len(hs.Terms) > 4 {
		s += fmt.Sprintf(" and %d more words", len(hs.Terms)-4)
	}
	if dense {
		s += "; the score shown is the reciprocal rank fusion with the dense ranking"
	}
	return s
}

func fillView(hs HitScore) bool { return hs.Score == 0 }

// ProvisionExplainer is optionally implemented by a ProvisionFinder to say
// which provisions a question is closest to and which it was taken to ask
// about (Explain).
type ProvisionExplainer interface {
	MatchProvisions(ctx context.Context, question string) []ProvisionMatch
}

// noteProvisions records the provision stage of SearchWith.
func (ex *Explain) noteProvisions(ctx context.Context, f ProvisionFinder, topic string, scope []string, found []Hit, absent []Absence, res Result) {
	if ex == nil {
		return
	}
	ps := &ProvisionStage{Docs: scope, Found: found, NotFound: absent}
	if pe, ok := f.(ProvisionExplainer); ok && topic != "" {
		ps.Matches = pe.MatchProvisions(ctx, topic)
	}
	var asked []string
	for _, m := range ps.Matches {
		if m.Asked {
			asked = append(asked, m.Provision)
		}
	}
	switch {
	case len(scope) == 0:
		ps.Why = fmt.Sprintf("not looked for: the search was not narrowed to at most %d documents", MaxProvisionDocs)
	case len(asked) == 0 && ps.Matches != nil:
		ps.Why = "the question asks about no playbook provision clearly"
	case len(found) > 0:
		ps.Why = fmt.Sprintf("the question asks about %s: the detectors' passage is put first", strings.Join(asked, " and "))
	case len(absent) > 0:
		ps.Why = fmt.Sprintf("the question asks about %s: the detectors found it in none of the documents searched", strings.Join(asked, " and "))
	default:
		ps.Why = "the detectors put nothing first"
	}
	ex.Provisions = ps
	ex.reorder(res.Hits)
}

// reorder rebuilds Hits for the final hits of a search whose lexical hits
// were reranked or had provision passages fused in: each lexical hit keeps
// the contributions recorded for the span it was cut from.
func (ex *Explain) reorder(hits []Hit) {
	if ex == nil {
		return
	}
	if ex.lexical == nil {
		ex.lexical = slices.Clone(ex.Hits)
	}
	ex.Hits = ex.Hits[:0]
	for _, h := range hits {
		hs := HitScore{Rank: h.Rank, DocID: h.DocID, Start: h.Span.Start, End: h.Span.End, Score: h.Score, View: h.View.String(), Provision: h.Provision}
		switch {
		case h.View == index.ViewProvision:
			hs.Why = fmt.Sprintf("the review detectors' passage for %s (confidence %.2f)", h.Provision, h.Score)
		default:
			hs.Terms = ex.termsOf(h)
			hs.Why = hitWhy(hs, ex.Fusion.Dense)
			if ex.Fusion.Rerank {
				hs.Why += "; reordered by the reranker (the score shown is its)"
			}
		}
		ex.Hits = append(ex.Hits, hs)
	}
}

// termsOf returns the contributions recorded for the lexical hit h (by its
// span's document and start), before provision passages were fused in.
func (ex *Explain) termsOf(h Hit) []TermScore {
	for _, hs := range ex.lexical {
		if hs.DocID == h.DocID && hs.Start <= h.Span.Start && h.Span.End <= hs.End {
			return hs.Terms
		}
	}
	return nil
}

// WriteText writes the plan for a person at a terminal (pakton search
// --explain): one paragraph a stage, then how each hit was scored.
func (ex *Explain) WriteText(w io.Writer, docName func(id string) string) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("Plan for %q\n", ex.Question)
	p("  routing (%s): %s\n", ex.Route.Decision, orNone(ex.Route.Why, "the whole collection"))
	if len(ex.Route.Dropped) > 0 {
		p("    words that only name the contract, left out: %s\n", strings.Join(ex.Route.Dropped, ", "))
	}
	for _, f := range ex.Framing {
		p("  framing: %q left out: %s\n", f.Word, f.Why)
	}
	var terms []string
	for _, t := range ex.Terms {
		if t.Weight == 0 {
			terms = append(terms, t.Word+" (in no document)")
		} else {
			terms = append(terms, fmt.Sprintf("%s %.2g", t.Word, t.Weight))
		}
	}
	p("  words searched: %s\n", orNone(strings.Join(terms, ", "), "none"))
	if len(ex.Expansions) > 0 {
		by := map[string][]string{}
		var order []string
		for _, e := range ex.Expansions {
			key := e.From + " → " + e.Kind
			if _, ok := by[key]; !ok {
				order = append(order, key)
			}
			by[key] = append(by[key], fmt.Sprintf("%s %.2g", e.Word, e.Weight))
		}
		for _, k := range order {
			p("  added from %s: %s\n", k, strings.Join(by[k], ", "))
		}
	}
	if len(ex.Learned) > 0 {
		var ws []string
		for _, l := range ex.Learned {
			w := l.Term
			if index.IsHeadTerm(w) {
				w = "heading:" + strings.TrimPrefix(w, index.HeadMark)
			}
			ws = append(ws, fmt.Sprintf("%s %.2g", w, l.Weight))
		}
		p("  learnt from labelled questions: %s\n", strings.Join(ws, ", "))
	}
	if ps := ex.Provisions; ps != nil {
		p("  provisions: %s\n", ps.Why)
		for _, m := range ps.Matches {
			mark := ""
			if m.Asked {
				mark = " (asked)"
			}
			p("    %s: score %.2f, lead %.2f%s\n", m.Provision, m.Score, m.Lead, mark)
		}
	}
	var fused []string
	if ex.Fusion.Dense {
		fused = append(fused, "dense vectors (reciprocal rank fusion)")
	}
	if ex.Fusion.Rerank {
		fused = append(fused, fmt.Sprintf("a reranker over the best %d", ex.Fusion.RerankDepth))
	}
	if ex.Fusion.Fill {
		fused = append(fused, "filled to k with the text around the best match")
	}
	p("  ranking: BM25 over the clause views%s\n", prefixed("; ", strings.Join(fused, "; ")))
	for _, h := range ex.Hits {
		name := h.DocID
		if docName != nil {
			name = docName(h.DocID)
		}
		p("  [%d] %s [%d, %d): %s\n", h.Rank, name, h.Start, h.End, h.Why)
	}
	var off []string
	for _, s := range ex.Stages {
		if !s.On {
			off = append(off, s.Name[:strings.IndexByte(s.Name, ':')])
		}
	}
	if len(off) > 0 {
		p("  switched off: %s\n", strings.Join(off, ", "))
	}
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}
