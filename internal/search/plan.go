package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pakton/pakton/internal/names"
	"github.com/pakton/pakton/internal/search/index"
)

// A Plan holds every decision of a query, made before anything is scored
// (Index.Plan), so a search can be shown before or after it runs: the route
// (which documents are searched and why), the words dropped because they
// name the contract or frame the question, the weighted terms with each
// word the collection added and where it came from, whether the review
// detectors are asked about a provision, and how the rankings are fused.
// Index.Run only scores and collects what the plan says; pakton search
// --explain prints the plan and each hit's score makeup (Explain). Every
// stage that was tuned on a development set is listed in Stages with the
// switch that turns it off, so an ablation is a flag, not a patch.
type Plan struct {
	Query    Query  `json:"-"`
	Question string `json:"question"`
	// Route is the first stage: the documents searched and why.
	Route Route `json:"route"`
	// Words are the question's analyzed words after routing: the words that
	// name the contract are no longer among them.
	Words []string `json:"words"`
	// Framing are the words left out because they frame the question
	// ("does this contract mention …"), each with why.
	Framing []FramingWord `json:"framing,omitempty"`
	// Terms are the words searched with (stems) and their weights: 1, and
	// more for a word the question repeats; a word no document uses is
	// listed with weight 0.
	Terms []TermWeight `json:"terms"`
	// Expansions are the words added to the question, each from the word
	// that brought it (its source), with its weight.
	Expansions []Expansion `json:"expansions,omitempty"`
	// Learned are the words a model learnt from labelled questions added
	// (Query.Learned), with their weights.
	Learned []Weighted `json:"learned,omitempty"`
	// Provision is the decision about the review detectors: whether a
	// ProvisionFinder is asked (SearchWith), in which documents, about what.
	Provision ProvisionPlan `json:"provision"`
	// Fusion says how the lexical ranking is combined with others.
	Fusion Fusion `json:"fusion"`
	// Stages lists every stage, whether it runs and the switch that turns
	// it off.
	Stages []Stage `json:"stages"`

	qt     []queryTerm // Terms and Expansions as the scorer reads them
	docs   []int32     // the documents searched (nil: the whole collection)
	ranges [][2]int32  // their units, in document order (nil: the whole collection)
	// v is the snapshot the plan was made on: document and term numbers
	// are its.
	v *index.Snapshot
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

// ProvisionPlan is the decision about the provision stage: a
// ProvisionFinder (Models.Provisions) is asked about Topic in Docs, or, when
// Docs is empty, not asked, and Why says which and why.
type ProvisionPlan struct {
	// Docs are the documents the detectors look in (the search's scope);
	// none when the stage is off or the search is not narrowed to at most
	// MaxProvisionDocs.
	Docs []string `json:"docs,omitempty"`
	// Topic is what the question asks about, without the words that name
	// the contract (Index.Topic): what the finder is asked.
	Topic string `json:"topic,omitempty"`
	// NoSpread: the finder puts a provision's passage first even where the
	// provision pervades the contract (Stages.NoSpread).
	NoSpread bool   `json:"no_spread,omitempty"`
	Why      string `json:"why"`
}

// Fusion says how the rankings are combined.
type Fusion struct {
	// Dense is set when the lexical ranking is fused with exact cosine
	// search over the question's embedding (reciprocal rank fusion).
	Dense bool `json:"dense"`
	// Rerank is set when a cross-encoder reorders the best RerankDepth
	// passages (SearchWith with a Reranker).
	Rerank      bool `json:"rerank"`
	RerankDepth int  `json:"rerank_depth,omitempty"`
	// Fill is set when the search, narrowed to some documents, fills up to
	// k with the text around the best match (passages that match no word).
	Fill bool `json:"fill"`
}

// Stage is a stage of the plan and its switch.
type Stage struct {
	Name string `json:"name"`
	On   bool   `json:"on"`
	// Switch is the query field that turns it off (search.Stages; the same
	// name, lower-cased with underscores, in the API and the CLI's flags).
	Switch string `json:"switch"`
}

// RouteDecision says how a question's documents were chosen.
type RouteDecision string

// Route decisions.
const (
	RouteAll       RouteDecision = "all"       // the question names no contract: the whole collection is searched
	RouteNamed     RouteDecision = "named"     // it names one contract, searched alone
	RouteSeveral   RouteDecision = "several"   // it names several contracts, searched together ("compare the Acme and Beta caps")
	RouteAmbiguous RouteDecision = "ambiguous" // a name it uses fits several contracts: all are searched, and the user should choose
	RouteUnknown   RouteDecision = "unknown"   // it calls a contract by a name none is called by, nor near enough to read as one: nothing is searched (Route.Nearest offers the nearest)
	RouteChosen    RouteDecision = "chosen"    // the caller chose the documents (Query.Docs)
	RouteOff       RouteDecision = "off"       // routing was switched off (Query.NoRoute)
)

// Narrowed reports whether the decision restricted the search to some
// documents because of the question's own words.
func (d RouteDecision) Narrowed() bool {
	return d == RouteNamed || d == RouteSeveral || d == RouteAmbiguous
}

// Route is the first stage of a plan: the documents a question is searched
// in, the names in it that decided so, and a sentence saying it.
type Route struct {
	Decision RouteDecision `json:"decision"`
	// Docs are the documents searched, in the order the question names
	// them; empty when the whole collection is searched.
	Docs []string `json:"docs,omitempty"`
	// Candidates are the documents an ambiguous name fits, for the user to
	// choose from (Decision RouteAmbiguous).
	Candidates []Candidate `json:"candidates,omitempty"`
	// Matched are the names in the question that decided the route.
	Matched []NameMatch `json:"matched,omitempty"`
	// Nearest are, when the question calls a contract by a name none is
	// called by and none is near enough to be read as it (Decision
	// RouteUnknown), the contracts whose names are nearest: "did you
	// mean …?".
	Nearest []Candidate `json:"nearest,omitempty"`
	// Broad are names in the question that fit too many contracts to name
	// one (the company on every contract of its own deal room).
	Broad []NameMatch `json:"broad,omitempty"`
	// Unknown are what the question calls a contract by a name no document
	// is called by ("the Zenith agreement").
	Unknown []string `json:"unknown,omitempty"`
	// Dropped are the question's words left out of the search because
	// they only name the contract.
	Dropped []string `json:"dropped,omitempty"`
	// Why says all of it in one sentence, naming the documents.
	Why string `json:"why,omitempty"`
}

// NameMatch is a name of some documents found in a question.
type NameMatch struct {
	Text string `json:"text"` // as the question writes it
	// Name is the name as the (first) document writes it, and Kind what
	// it is to it ("short name of Bravatek Solutions, Inc.", "title",
	// "year").
	Name string   `json:"name"`
	Kind string   `json:"kind"`
	Docs []string `json:"docs"` // the documents it fits
	// Near: the question spells it otherwise (Text), and it was read as
	// the nearest name (Name): "Slicon" as "Silicon Valley Bank".
	Near bool `json:"near,omitempty"`
}

// nearNameMatch describes a mistyped name read as the nearest name.
func nearNameMatch(v *index.Snapshot, m *nearMatch) NameMatch {
	nm := NameMatch{Text: m.run.text, Near: true}
	if m.entry.seg >= 0 {
		nm.Name, nm.Kind = v.Segments()[m.entry.seg].NameText(entry(v, m.entry)), describeName(v, m.entry)
	} else {
		nm.Name, nm.Kind = docDisplay(v, m.docs[0]), "words of its opening"
	}
	for _, d := range m.docs {
		nm.Docs = append(nm.Docs, v.DocID(d))
	}
	return nm
}

// Candidate is a document an ambiguous name fits.
type Candidate struct {
	DocID string `json:"doc_id"`
	// Display is how the faces show it: title, parties and date
	// (names.Display): "Distributor Agreement — Airspan Networks / GLS,
	// 31 March 2000".
	Display string `json:"display"`
	Name    string `json:"name"`            // the document's name in the collection (its file)
	Title   string `json:"title,omitempty"` // its title, as learnt from it
	Date    string `json:"date,omitempty"`  // the date it was made, as written
}

// Plan makes every decision of q (Plan) on the index's current snapshot.
// A sharded index (SetSharding) that has not learned its word associations
// ahead cannot weigh an expanded query and returns an error.
func (ix *Index) Plan(ctx context.Context, q Query) (*Plan, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := ix.routePlan(q)
	v := p.v
	if p.docs != nil && len(p.docs) == 0 {
		// None of the caller's documents is in the index, or the question
		// calls a contract by a name none goes by: nothing is searched.
		p.Terms = []TermWeight{}
		p.plan()
		if !q.NoProvisions {
			p.Provision = ix.planProvision(v, q, p.Route)
		}
		return p, nil
	}
	if ix.sharding != nil && ix.table == nil && q.expand() {
		// The word associations would be learned from this server's
		// postings only.
		return nil, errors.New("search: a sharded collection needs its word associations learned ahead (pakton docs optimize)")
	}
	p.qt = ix.weighQuery(v, q, p.Words, p)
	if p.docs != nil {
		docs := slices.Clone(p.docs)
		slices.Sort(docs)
		for _, d := range docs {
			f, l := v.DocRange(d)
			p.ranges = append(p.ranges, [2]int32{f, l})
		}
	}
	dim, _ := v.Dense()
	p.Fusion.Dense = ix.sharding == nil && len(q.Vector) > 0 && dim > 0 && len(q.Vector) == dim
	p.Fusion.Fill = p.ranges != nil && !q.NoFill
	p.plan()
	if !q.NoProvisions {
		p.Provision = ix.planProvision(v, q, p.Route)
	}
	return p, nil
}

// plan fills in the parts of a plan that follow from its query alone.
func (p *Plan) plan() {
	q := p.Query
	p.Question = q.Text
	p.Stages = []Stage{
		{"routing: search only the contracts the question names", !q.NoRoute && len(q.Docs) == 0, "NoRoute"},
		{"framing: leave out the words the question frames itself with", !q.NoFraming, "NoFraming"},
		{"associations: add the words that co-occur with a question word", !q.NoAssociations, "NoAssociations"},
		{"headings: add the body words of the clauses a question word heads", !q.NoHeadings, "NoHeadings"},
		{"learnt: add the words learnt from labelled questions like this one (what their answers say, how their clauses are headed)", !q.NoLearnt, "NoLearnt"},
		{"provisions: put first the passage the review detectors find for a provision asked about", !q.NoProvisions, "NoProvisions"},
		{"spread: put no passage first for a provision that pervades the contract (more than 4 of its passages, or a tenth of them, rated near the best; for a provision nobody labelled, more than 4 saying it in its defining words)", !q.NoProvisions && !q.NoSpread, "NoSpread"},
		{"fill: in a narrowed search, fill up to k with the text around the best match", !q.NoFill, "NoFill"},
	}
	if q.NoProvisions {
		p.Provision.Why = "switched off"
	}
}

// planProvision decides the provision stage: the finder looks in the
// documents the search is narrowed to (the caller's, else the routed ones)
// when they are at most MaxProvisionDocs, and is asked about the question
// without the words that name the contract.
func (ix *Index) planProvision(v *index.Snapshot, q Query, r Route) ProvisionPlan {
	scope := q.Docs
	if len(scope) == 0 && r.Decision.Narrowed() {
		scope = r.Docs
	}
	if len(scope) == 0 || len(scope) > MaxProvisionDocs {
		return ProvisionPlan{Why: fmt.Sprintf("not looked for: the search was not narrowed to at most %d documents", MaxProvisionDocs)}
	}
	return ProvisionPlan{Docs: scope, Topic: ix.topic(v, q.Text, scope, !q.NoFraming), NoSpread: q.NoSpread,
		Why: "looked for in the documents searched, when a provision finder is configured"}
}

// Route plans the first stage of q alone: which documents it is searched in,
// and why. It reads only the collection's names and headers, so a sharded
// collection routes without its peers or its learned word associations.
func (ix *Index) Route(ctx context.Context, q Query) (Route, error) {
	if err := ctx.Err(); err != nil {
		return Route{}, err
	}
	return ix.routePlan(q).Route, nil
}

// routePlan makes the first stage of q's plan: its route, and the
// question's words left to search with.
func (ix *Index) routePlan(q Query) *Plan {
	v := ix.view()
	qs := analyzeWords(q.Text)
	p := &Plan{Query: q, v: v}
	terms := make([]string, len(qs))
	breaks := make([]bool, len(qs))
	for i, w := range qs {
		terms[i], breaks[i] = w.term, w.brk
	}
	var docs []int32
	var ref map[int]bool
	r := &p.Route
	switch {
	case len(q.Docs) > 0:
		r.Decision = RouteChosen
		for _, id := range q.Docs {
			if d, ok := v.LookupDoc(id); ok {
				docs = append(docs, d)
				r.Docs = append(r.Docs, id)
			}
		}
		if len(docs) == 1 {
			ref = referenceTerms(v, terms, breaks, docs[0])
		}
		if len(docs) == 0 {
			docs = []int32{} // none of the caller's documents is indexed: nothing to search
		}
	case q.NoRoute:
		r.Decision = RouteOff
	default:
		ids := make([]int32, len(qs))
		for i, w := range qs {
			ids[i] = -1
			if tid, ok := v.Lookup(w.term); ok {
				ids[i] = tid
			}
		}
		nr := ix.routeNames(v, q.Text, qs, ids)
		r.Unknown = nr.unknown
		r.Broad = nameMatches(v, q.Text, qs, nr.broad)
		// The header router (route.go) first: it fires only on strong
		// evidence — many words of one document's title, parties or
		// opening ("Consider the Supply Agreement between Acme Corp. and
		// Borealis Foods") — and is then the better judge, having weighed
		// every such word. Short references ("the Bravatek agreement") are
		// the learnt names' to decide.
		rr := ix.route(v, terms, breaks, legacyNamed(q.Text))
		if rr.doc >= 0 && headerYields(rr, nr) {
			rr.doc = -1
		}
		if rr.doc >= 0 {
			r.Decision = RouteNamed
			if len(rr.docs) > 1 {
				r.Decision = RouteAmbiguous
			}
			docs = append(docs, rr.docs...)
			ref = map[int]bool{}
			if nr.decision.Narrowed() && subset(nr.docs, rr.docs) {
				// The learnt names agree: they say better what matched.
				r.Matched = nameMatches(v, q.Text, qs, nr.matched)
			} else {
				r.Matched = headerMatches(v, q.Text, qs, ids, rr.docs)
			}
			r.Unknown = nil
		} else if nr.decision.Narrowed() {
			r.Decision = nr.decision
			docs = nr.docs
			r.Matched = nameMatches(v, q.Text, qs, nr.matched)
			ref = map[int]bool{}
			for _, m := range nr.matched {
				for k := m.from; k < m.to; k++ {
					ref[k] = true
				}
			}
		} else if m, nearest := ix.routeNear(v, q.Text, qs, ids, nr.unknown); m != nil {
			// A name no contract goes by, read as the nearest name
			// (routenear.go), and said.
			r.Decision = RouteNamed
			if len(m.docs) > 1 {
				r.Decision = RouteAmbiguous
			}
			docs = m.docs
			r.Unknown = []string{m.run.text}
			r.Matched = []NameMatch{nearNameMatch(v, m)}
			ref = map[int]bool{}
			for k := m.run.from; k < m.run.to; k++ {
				ref[k] = true
			}
		} else {
			r.Decision = nr.decision // RouteAll or RouteUnknown
			if r.Decision == RouteUnknown {
				// A contract called by a name none goes by is not
				// answered from the others: nothing is searched, and
				// the nearest names are offered.
				docs = []int32{}
				for _, d := range nearest {
					r.Nearest = append(r.Nearest, candidate(v, d))
				}
			}
		}
		if r.Decision.Narrowed() {
			for _, d := range docs[:min(len(docs), MaxProvisionDocs)] {
				for k := range referenceTerms(v, terms, breaks, d) {
					ref[k] = true
				}
			}
		}
	}
	if r.Decision.Narrowed() {
		for _, d := range docs {
			r.Docs = append(r.Docs, v.DocID(d))
		}
	}
	if r.Decision == RouteAmbiguous {
		for _, d := range docs {
			r.Candidates = append(r.Candidates, candidate(v, d))
		}
	}

	// Words that only name the contract do not help find the clause; nor
	// does the rest of the part of the question that names it ("Consider
	// the Cooperation Agreement between A and B for Renewable Energy
	// Projects; is liability capped?").
	var self func(i int) bool
	if len(ref) > 0 && !q.NoFraming {
		framing := ix.framing(v, q.Text, terms)
		self = func(i int) bool { return framing[terms[i]] != "" }
	}
	ref = namingParts(ref, terms, breaks, self)
	p.Words = terms
	if len(ref) > 0 && len(ref) < len(terms) {
		p.Words = nil
		for i, t := range terms {
			if ref[i] {
				r.Dropped = append(r.Dropped, q.Text[qs[i].start:qs[i].end])
				continue
			}
			p.Words = append(p.Words, t)
		}
	}
	p.docs = docs
	r.Why = why(v, r)
	return p
}

// legacyNamed reports for each analyzed word of text whether it was
// written like a name the way the header router has always read it: a
// capital first letter (also at the start of a sentence) or a digit.
func legacyNamed(text string) []bool {
	_, _, named := analyzeQuery(text)
	return named
}

// nameMatches describes the matches for the faces.
func nameMatches(v *index.Snapshot, text string, qs []qword, ms []nameMatch) []NameMatch {
	var out []NameMatch
	for _, m := range ms {
		nm := NameMatch{Text: strings.TrimSpace(text[qs[m.from].start:qs[m.to-1].end])}
		if len(m.entries) == 0 {
			// found in the documents' opening text, not among their names
			nm.Name, nm.Kind = nm.Text, "in the opening text"
			for _, d := range m.entity {
				nm.Docs = append(nm.Docs, v.DocID(d))
			}
		}
		seen := map[int32]bool{}
		for _, r := range m.entries {
			e := entry(v, r)
			if k := names.Kind(e.Kind); k == names.KindRole || k == names.KindCorrespondence {
				continue
			}
			if nm.Name == "" {
				nm.Name = v.Segments()[r.seg].NameText(e)
				nm.Kind = describeName(v, r)
			}
			if d := nameDoc(v, r); !seen[d] {
				seen[d] = true
				nm.Docs = append(nm.Docs, v.DocID(d))
			}
		}
		out = append(out, nm)
	}
	return out
}

// describeName says what a name is to its document: "party", "short name
// of Bravatek Solutions, Inc.", "title".
func describeName(v *index.Snapshot, r nameRef) string {
	e := entry(v, r)
	k := names.Kind(e.Kind)
	if e.Party >= 0 && k != names.KindParty {
		// The party's full name is its entry of kind party with the same
		// index, among the document's entries.
		seg := v.Segments()[r.seg]
		own, _ := seg.NamesOf(e.Doc)
		for _, o := range own {
			if o.Party == e.Party && names.Kind(o.Kind) == names.KindParty {
				return k.String() + " of " + seg.NameText(o)
			}
		}
	}
	return k.String()
}

// headerMatches describes what the header router matched: the question's
// words found in the routed documents' headers, as one match.
func headerMatches(v *index.Snapshot, text string, qs []qword, ids []int32, docs []int32) []NameMatch {
	if len(docs) == 0 {
		return nil
	}
	var words []string
	for i, w := range qs {
		if ids[i] < 0 {
			continue
		}
		if p, ok := v.RoutePosting(ids[i], docs[0]); ok && p.Title == 1 && routeIDF(v, ids[i]) > 1 {
			words = append(words, text[w.start:w.end])
		}
	}
	if len(words) == 0 {
		return nil
	}
	nm := NameMatch{Text: strings.Join(words, " "), Name: v.DocName(docs[0]), Kind: "words of its file name, title or parties"}
	for _, d := range docs {
		nm.Docs = append(nm.Docs, v.DocID(d))
	}
	return []NameMatch{nm}
}

// candidate describes document d for a user choosing among documents.
func candidate(v *index.Snapshot, d int32) Candidate {
	c := Candidate{DocID: v.DocID(d), Name: v.DocName(d), Display: docDisplay(v, d)}
	i, ld := v.SegmentOfDoc(d)
	seg := v.Segments()[i]
	own, _ := seg.NamesOf(ld)
	for _, e := range own {
		switch names.Kind(e.Kind) {
		case names.KindTitle:
			if c.Title == "" {
				c.Title = seg.NameText(e)
			}
		case names.KindDate:
			if c.Date == "" {
				c.Date = seg.NameText(e)
			}
		}
	}
	return c
}

// why says in one sentence which documents were searched and why.
func why(v *index.Snapshot, r *Route) string {
	const maxWhyDocs = 8 // documents named in full; more are counted
	docNames := func(ids []string) string {
		var ns []string
		for i, id := range ids {
			if len(ids) > maxWhyDocs && i == maxWhyDocs-2 {
				// a name that fits a hundred contracts of a large collection
				ns = append(ns, fmt.Sprintf("%d others", len(ids)-i))
				break
			}
			name := ""
			if d, ok := v.LookupDoc(id); ok {
				name = docDisplay(v, d)
			}
			ns = append(ns, name)
		}
		return listWords(ns)
	}
	said := func(ms []NameMatch) string {
		var out []string
		for _, m := range ms {
			s := "“" + m.Text + "”"
			if m.Kind != "" {
				s += " (" + m.Kind + ")"
			}
			out = append(out, s)
		}
		return listWords(out)
	}
	var b strings.Builder
	if len(r.Matched) == 1 && r.Matched[0].Near {
		m := r.Matched[0]
		fmt.Fprintf(&b, "No contract is called “%s”; the nearest name is “%s” (%s): ", m.Text, m.Name, m.Kind)
		if r.Decision == RouteNamed {
			fmt.Fprintf(&b, "searched %s only.", docNames(r.Docs))
		} else {
			fmt.Fprintf(&b, "it fits %d contracts: %s. Searched all of them; choose one to search it alone.", len(r.Docs), docNames(r.Docs))
		}
		return b.String()
	}
	switch r.Decision {
	case RouteNamed:
		fmt.Fprintf(&b, "The question names %s by %s: searched %s only.", docNames(r.Docs), said(r.Matched), docNames(r.Docs))
	case RouteSeveral:
		fmt.Fprintf(&b, "The question names %d contracts by %s: searched %s only.", len(r.Docs), said(r.Matched), docNames(r.Docs))
	case RouteAmbiguous:
		fmt.Fprintf(&b, "The question's %s fits %d contracts: %s. Searched all of them; choose one to search it alone.", said(r.Matched), len(r.Docs), docNames(r.Docs))
	case RouteUnknown:
		fmt.Fprintf(&b, "No contract in this collection is called %s, so none was searched.", quoteList(r.Unknown))
		if len(r.Nearest) > 0 {
			var ns []string
			for _, c := range r.Nearest {
				ns = append(ns, c.Display)
			}
			fmt.Fprintf(&b, " Did you mean %s?", orWords(ns))
		}
	case RouteChosen:
		return ""
	case RouteOff:
		return ""
	default:
		if len(r.Broad) == 0 {
			return ""
		}
	}
	if len(r.Broad) > 0 && !r.Decision.Narrowed() {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		for _, m := range r.Broad {
			fmt.Fprintf(&b, "“%s” fits %d of the %d contracts, so it names none in particular: searched them all. ", m.Text, len(m.Docs), v.LiveDocs())
		}
	}
	return strings.TrimSpace(b.String())
}

// orWords joins words as prose: "a", "a or b", "a, b or c".
func orWords(ws []string) string {
	if len(ws) < 2 {
		return strings.Join(ws, "")
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " or " + ws[len(ws)-1]
}

// docDisplay is how the faces show document d: its title, parties and date
// (names.Display) from the names the index keeps.
func docDisplay(v *index.Snapshot, d int32) string {
	i, ld := v.SegmentOfDoc(d)
	seg := v.Segments()[i]
	own, _ := seg.NamesOf(ld)
	list := make([]names.Name, 0, len(own))
	for _, e := range own {
		list = append(list, names.Name{Text: seg.NameText(e), Kind: names.Kind(e.Kind), Party: int(e.Party)})
	}
	name := v.DocName(d)
	return names.Display(names.FromList(list, name), name)
}

// listWords joins words as prose: "a", "a and b", "a, b and c".
func listWords(ws []string) string {
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0]
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}

func quoteList(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = "“" + w + "”"
	}
	return listWords(q)
}

// headerYields reports whether the header router's document gives way to
// the learnt names'. It does when the header router found a family of close
// documents the learnt names tell apart; and when the two disagree and the
// header router found its document by a title phrase alone, no word written
// like a name in its header: words its title merely contains (a policy
// whose first sentence is read as its title: "We collect personal
// information …"), where the learnt names matched a name some other document
// goes by, the better evidence.
func headerYields(rr routeResult, nr namesRoute) bool {
	if !nr.decision.Narrowed() {
		return false
	}
	return len(rr.docs) > 1 && subset(nr.docs, rr.docs) || !rr.byName && disjoint(nr.docs, rr.docs)
}

// disjoint reports whether a and b have no document in common.
func disjoint(a, b []int32) bool {
	for _, d := range a {
		if slices.Contains(b, d) {
			return false
		}
	}
	return true
}

// subset reports whether every document of a is in b.
func subset(a, b []int32) bool {
	for _, d := range a {
		if !slices.Contains(b, d) {
			return false
		}
	}
	return true
}
