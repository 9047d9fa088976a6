package agent

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/search/index"
	"github.com/pakton/pakton/internal/tool"
)

// Limits on a Request that every face enforces, in characters: the
// question is a search query (search.MaxQueryChars); context and
// instructions go into every prompt of the ask.
const (
	MaxQuestionChars = search.MaxQueryChars
	MaxContextChars  = 20000
)

// Request is what a user asks: a question, optional background context and
// instructions, and optionally the documents to answer from.
type Request struct {
	Question     string
	Context      string
	Instructions string
	// Docs are document ids the user selected; empty lets the question route
	// to the contracts it names, or search the whole collection.
	Docs []string
	// NoRoute searches the whole collection even when the question seems to
	// name a contract.
	NoRoute bool
	// IncludeCorrespondence counts correspondence (cover e-mails, letters,
	// indexes) among the contracts a deal-room question is answered for.
	IncludeCorrespondence bool
}

// NoModelNotice is the statement every evidence report carries.
const NoModelNotice = "No language model is configured, so nothing here has been interpreted: " +
	"these are the provisions whose wording best matches the question, quoted verbatim with their clause paths. " +
	"Whether and how they answer the question has not been assessed. " +
	"Configure a model server (--llm-url and --llm-model, or PAKTON_LLM_URL and PAKTON_LLM_MODEL) for a reasoned report."

// EvidenceK is the number of provisions an evidence report quotes.
const EvidenceK = 5

// Evidence answers req without any language model: it retrieves the k
// provisions that best match the question (routing to the contracts the
// question names), quotes each verbatim with its clause path, pages and
// span, highlights the sentences of each that share most words with the
// question, and says plainly that nothing was interpreted.
func Evidence(ctx context.Context, lib *Library, req Request, k int) (*report.Report, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if k <= 0 {
		k = EvidenceK
	}
	res, ev, err := lib.Corpus.Search(ctx, search.Query{Text: req.Question, Docs: req.Docs, K: k, Stages: search.Stages{NoRoute: req.NoRoute}})
	if err != nil {
		return nil, err
	}
	r := &report.Report{
		Mode: report.ModeEvidence, Question: req.Question, Context: req.Context, Instructions: req.Instructions,
		Title: "Evidence: " + oneLine(req.Question), Notice: NoModelNotice,
		Complete: true, StopReason: "evidence",
	}
	switch {
	case len(req.Docs) > 0:
		r.Documents = lib.docRefs(req.Docs)
		r.Summary = "Searched the selected " + plural(len(req.Docs), "document", "documents") + ": " + names(r.Documents) + "."
	case len(res.RoutedTo) > 0:
		r.Documents = lib.docRefs(res.RoutedTo)
		which := "that document was"
		if len(r.Documents) > 1 {
			which = "those documents were"
		}
		r.Summary = "The question names " + names(r.Documents) + "; only " + which + " searched (switch routing off to search every document)."
	default:
		seen := map[string]bool{}
		var ids []string
		for _, e := range ev {
			if !seen[e.DocID] {
				seen[e.DocID] = true
				ids = append(ids, e.DocID)
			}
		}
		r.Documents = lib.docRefs(ids)
		r.Summary = "The question names no document, so the whole collection was searched."
		r.Flag("the question names no document: provisions may come from different contracts")
	}
	if len(ev) == 0 {
		r.Summary += " No provision matched the question's words."
	} else {
		r.Summary += fmt.Sprintf(" Below are the %s that best match the question's words, with the sentences sharing most words with it listed under each.", plural(len(ev), "provision", "provisions"))
		var found []string
		for _, e := range ev {
			if f := e.Provision + " in " + e.DocName; e.Provision != "" && !slices.Contains(found, f) {
				found = append(found, f)
			}
		}
		if len(found) > 0 {
			r.Summary += fmt.Sprintf(" The question asks about a kind of provision the offline reviewer knows, so the passage its detectors found comes first (%s), whatever its wording.", strings.Join(found, "; "))
		}
	}
	if rt := res.Route; rt != nil && rt.Why != "" {
		switch {
		case rt.Decision == search.RouteAmbiguous:
			r.Flag(rt.Why + " (To choose: pakton ask --doc, the API's \"docs\", the MCP ask's \"doc\".)")
		case rt.Decision == search.RouteUnknown, len(rt.Broad) > 0 && !rt.Decision.Narrowed():
			r.Flag(rt.Why)
		}
	}
	if req.Context != "" || req.Instructions != "" {
		r.Flag("context and instructions are recorded but were not applied: no language model read them")
	}
	var searched []string
	switch {
	case len(req.Docs) > 0:
		searched = req.Docs
	case len(res.RoutedTo) > 0:
		searched = res.RoutedTo
	}
	checks, err := lib.checkProvisions(ctx, req.Question, searched)
	if err != nil {
		// The check is an addition: the evidence stands without it.
		r.Flag("the provision check failed: " + err.Error())
	}
	applyChecks(r, checks)
	weights := termWeights(req.Question, ev)
	for i, e := range ev {
		span := document.Span{Start: e.Start, End: e.End}
		r.Sources = append(r.Sources, report.Source{
			N: i + 1, DocID: e.DocID, DocName: e.DocName, Path: e.Path, Pages: e.Pages, Span: span, Quote: e.Text,
			Highlights: Highlights(e.Text, e.Start, weights, 2), LeansOn: leansOn(e.Support),
		})
	}
	lib.attachPerContract(ctx, r, req, res.Route, lib.Progress)
	report.Verify(ctx, r, lib)
	report.NameDocuments(r, lib)
	return r, nil
}

// termWeights weighs each analyzed term of the question (search.Analyze)
// by how rare it is among the sentences of the retrieved provisions
// (ln(1 + sentences/sentences containing it)): a word every provision shares,
// such as the name of the topic, says less about which sentence answers
// the question than a word only one sentence contains.
func termWeights(question string, ev []tool.Evidence) map[string]float64 {
	q := map[string]bool{}
	for _, t := range index.Analyze(question) {
		q[t] = true
	}
	df := map[string]int{}
	n := 0
	for _, e := range ev {
		for _, s := range Sentences(e.Text) {
			n++
			seen := map[string]bool{}
			for _, t := range index.Analyze(s.text) {
				if q[t] && !seen[t] {
					seen[t] = true
					df[t]++
				}
			}
		}
	}
	w := map[string]float64{}
	for t := range q {
		w[t] = math.Log(1 + float64(max(n, 1))/float64(max(df[t], 1)))
	}
	return w
}

// Highlights returns up to n sentences of text (which starts at code point
// start of its document) that best match the question, best first. A
// sentence scores the summed weights of the distinct question terms it
// contains (see termWeights); only sentences scoring at least half the best
// score are kept, so a weak match never pads the list.
func Highlights(text string, start int, weights map[string]float64, n int) []report.Highlight {
	var hs []report.Highlight
	for _, s := range Sentences(text) {
		seen := map[string]bool{}
		score := 0.0
		for _, t := range index.Analyze(s.text) {
			if w, ok := weights[t]; ok && !seen[t] {
				seen[t] = true
				score += w
			}
		}
		if score == 0 {
			continue
		}
		hs = append(hs, report.Highlight{Span: document.Span{Start: start + s.start, End: start + s.end}, Text: s.text, Score: math.Round(score*1000) / 1000})
	}
	sort.SliceStable(hs, func(i, j int) bool {
		if hs[i].Score != hs[j].Score {
			return hs[i].Score > hs[j].Score
		}
		return hs[i].Span.Len() < hs[j].Span.Len()
	})
	if len(hs) == 0 {
		return nil
	}
	best := hs[0].Score
	out := hs[:0]
	for _, h := range hs {
		if len(out) < n && 2*h.Score >= best {
			out = append(out, h)
		}
	}
	return out
}

// sentence is a sentence of a passage: its text and code-point offsets.
type sentence struct {
	text       string
	start, end int
}

// abbreviations whose period does not end a sentence.
var abbreviations = map[string]bool{"inc": true, "ltd": true, "corp": true, "co": true, "no": true, "e.g": true, "i.e": true,
	"sec": true, "art": true, "cl": true, "para": true, "mr": true, "ms": true, "dr": true, "st": true, "vs": true, "etc": false, "u.s": true, "llc": true}

// Sentences splits a passage into sentences: after ".", "?", "!" or ";"
// followed by white space (not after a common abbreviation), and at blank
// lines and line breaks before a list marker.
func Sentences(text string) []sentence {
	rs := []rune(text)
	var out []sentence
	begin := 0
	emit := func(end int) {
		a, z := begin, end
		for a < z && unicode.IsSpace(rs[a]) {
			a++
		}
		for z > a && unicode.IsSpace(rs[z-1]) {
			z--
		}
		if z > a {
			out = append(out, sentence{string(rs[a:z]), a, z})
		}
		begin = end
	}
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		next := i + 1
		if next >= len(rs) {
			break
		}
		switch {
		case (c == '.' || c == '?' || c == '!' || c == ';') && unicode.IsSpace(rs[next]):
			if c == '.' && abbreviations[strings.ToLower(lastWord(rs[begin:i]))] {
				continue
			}
			emit(next)
		case c == '\n' && (rs[next] == '\n' || rs[next] == '(' || unicode.IsDigit(rs[next])):
			emit(next)
		}
	}
	emit(len(rs))
	return out
}

func lastWord(rs []rune) string {
	i := len(rs)
	for i > 0 && !unicode.IsSpace(rs[i-1]) && rs[i-1] != '(' {
		i--
	}
	return string(rs[i:])
}

func names(ds []report.DocRef) string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Name
	}
	return strings.Join(out, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// leansOn turns a passage's supporting evidence (definitions of the terms it
// uses, clauses it refers to) into the report's form.
func leansOn(s *docread.Support) []report.Support {
	if s == nil {
		return nil
	}
	var out []report.Support
	for _, d := range s.Definitions {
		sp := d.Span
		out = append(out, report.Support{Kind: "definition", Label: d.Term, Path: d.Path, Span: &sp, Text: d.Text})
	}
	for _, r := range s.References {
		l := report.Support{Kind: "reference", Label: r.Text, Path: r.Path, Span: r.Span, Text: r.TargetText}
		switch {
		case r.External != "":
			l.Note = "points into " + r.External + ", another instrument"
		case r.Span == nil:
			l.Note = "nothing in this document carries the label " + r.Label
		}
		out = append(out, l)
	}
	return out
}
