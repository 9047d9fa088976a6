package answer

import (
	"regexp"
	"strings"
	"sync"

	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// A date the contract defines by its own date. A contract that defines a
// date provision's term — ""Effective Date" means the close of business on
// the date specified in the preamble hereof", "shall mean the date first
// written above", "the date on which the Parties sign" — has the
// provision, whatever the detector scored its passages: the definition
// says so. Its value is the date the definition refers to: the date the
// contract's opening gives it, or, for the date of signature, the last
// dated signature (signedOn).

// maxDefinitionChars bounds the definition read after a defined term's
// "means" (bytes).
const maxDefinitionChars = 300

// reUnderline is a rule a filing draws under a defined term ("---------"),
// which may fall inside the definition's words.
var reUnderline = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[-_]{2,}`) })

// definedAsOwnDate reads a date provision p that the contract c defines by
// its own date or its date of signature; the definition's passage and the
// passage of the date are the extracts, the one the value is read from
// first. false when c does not define p's term so, or the date it refers
// to is not written.
func definedAsOwnDate(c *detect.Prepared, p *playbook.Provision, ex []detect.Extract, scores []float64) (*Answer, []detect.Extract, bool) {
	if p.Answer != playbook.AnswerDate || c == nil {
		return nil, nil, false
	}
	text := c.Doc().Doc.Text
	at, def, ok := termDefinition(text, p.Name)
	if !ok {
		return nil, nil, false
	}
	// the passage that defines the term (a filing's wide gaps may cut the
	// definition's sentence into several)
	dsp := c.Index().RuneSpan(at, at+len(p.Name)+2)
	def = strings.Join(strings.Fields(reUnderline().ReplaceAllString(def, " ")), " ")
	defEx, k := extractAppended(c, nil, dsp, scores)
	if k < 0 {
		return nil, nil, false
	}
	var a *Answer
	var out []detect.Extract
	switch {
	case reSigningDate().MatchString(def):
		a, out, ok = signedOn(c, defEx, scores)
	case reDateAbove().MatchString(def):
		v, sp, found := openingDate(c)
		var j int
		if found {
			out, j = extractAppended(c, defEx, sp, scores)
		}
		if !found || j < 0 {
			// "made as of 31 December, ---------  1996": a date the
			// filing's underline splits, and the passages with it, read
			// across them
			a, out, ok = openingDateRunsOn(c, p, scores)
			if ok {
				out = append(out, defEx...)
			}
			break
		}
		a, ok = &Answer{Kind: KindValue, Text: v.v, Spans: []Span{{Extract: j, Span: sp, Role: "value"}}}, true
	}
	if !ok || a == nil || a.Text == "" {
		return nil, nil, false
	}
	return a, leadWithAnswer(a, out), true
}

// termDefinition finds where text defines the term name (""Effective
// Date" means …", "shall mean", "refers to") and returns where the
// definition starts and its words, up to the end of its sentence or
// maxDefinitionChars.
func termDefinition(text, name string) (int, string, bool) {
	words := strings.Fields(name)
	if len(words) == 0 {
		return 0, "", false
	}
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	re, err := regexp.Compile(`(?i)["“]` + strings.Join(words, `\s+`) + `["”](?:\s|[-_])*(?:shall\s+)?(?:means?|refers?\s+to|is|shall\s+be)\b`)
	if err != nil {
		return 0, "", false
	}
	m := re.FindStringIndex(text)
	if m == nil {
		return 0, "", false
	}
	def := text[m[0]:min(len(text), m[1]+maxDefinitionChars)]
	// the definition's sentence: to its full stop before white space
	for i := m[1] - m[0]; i < len(def)-1; i++ {
		if def[i] == '.' && (def[i+1] == ' ' || def[i+1] == '\n' || def[i+1] == '\r' || def[i+1] == '\t') && !initial(def[:i]) {
			def = def[:i+1]
			break
		}
	}
	return m[0], def, true
}

// openingDateRunsOn reads the date of c's opening that a passage cuts short
// before its year (dateRunsOn), from the first passage of the opening that
// ends so.
func openingDateRunsOn(c *detect.Prepared, p *playbook.Provision, scores []float64) (*Answer, []detect.Extract, bool) {
	for k, ps := range c.Passages() {
		if ps.Span.Start >= openingChars {
			break
		}
		score := 0.0
		if k < len(scores) {
			score = scores[k]
		}
		e := c.Extract(k, score)
		if !reDateCut().MatchString(e.Text) {
			continue
		}
		return dateRunsOn(c, p, []detect.Extract{e}, scores)
	}
	return nil, nil, false
}
