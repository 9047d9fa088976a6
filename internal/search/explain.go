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

// Explain is a search's plan and how each hit's score was made, for a
// person to read (Query.Explain; pakton search --explain, the API's
// "explain": true): the Plan (every decision, made before anything was
// scored), what the review detectors found when the plan asked them, and
// each hit's score makeup. Asking for it changes no hit.
type Explain struct {
	*Plan
	// Provisions says which playbook provisions the question asks about and
	// what the review detectors found (SearchWith with a ProvisionFinder,
	// as Plan.Provision decided).
	Provisions *ProvisionStage `json:"provisions,omitempty"`
	// Hits say how each returned passage's score was made.
	Hits []HitScore `json:"hits"`

	lexical []HitScore // Hits as the lexical ranking made them
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

// scoreMakeup says how each hit's score was made: the BM25 contribution of
// every query term to the unit it came from, scored over the same scope.
// A hit came from the best-ranked unit whose span holds it (collect takes
// the ranked units in order, and a span an earlier unit held is taken).
func (ix *Index) scoreMakeup(v *index.Snapshot, qt []queryTerm, sc scope, ranked []scored, hits []Hit, dense bool) []HitScore {
	out := make([]HitScore, 0, len(hits))
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
		out = append(out, hs)
	}
	return out
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

// noteProvisions records what the provision stage of SearchWith found.
func (ex *Explain) noteProvisions(ctx context.Context, f ProvisionFinder, found []Hit, absent []Absence, hits []Hit) {
	if ex == nil {
		return
	}
	pp := ex.Plan.Provision
	ps := &ProvisionStage{Docs: pp.Docs, Found: found, NotFound: absent}
	if pe, ok := f.(ProvisionExplainer); ok && len(pp.Docs) > 0 {
		ps.Matches = pe.MatchProvisions(ctx, pp.Topic)
	}
	var asked []string
	for _, m := range ps.Matches {
		if m.Asked {
			asked = append(asked, m.Provision)
		}
	}
	switch {
	case len(pp.Docs) == 0:
		ps.Why = pp.Why
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
	ex.reorder(hits)
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
