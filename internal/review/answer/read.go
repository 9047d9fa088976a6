package answer

import (
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// Read reads the answer of provision p from the extracts chosen for it in
// contract c (best first), and returns it with the extracts it was read
// from: the chosen ones, or — for the parties, a title and an end date
// defined elsewhere — the passages of c that hold the answer, each with
// its score from scores (every passage's probability for p, in passage
// order).
//
// found says whether the provision was found (the best passage's
// confidence reached its threshold). A cell not found has the answer Not
// found, unless its best extract is a clause that excludes a yes/no
// provision: that answer (kind No, Excludes set) is shown below the
// threshold too. A found cell whose evidence excludes the provision gets
// an answer with Excludes set as well; the caller then shows the cell as
// not found.
//
// c may be nil: the answer is then read from the extracts alone (the model
// pass reads its verified quotations so), and scores are not used.
func Read(c *detect.Prepared, p *playbook.Provision, ex []detect.Extract, scores []float64, found bool) (*Answer, []detect.Extract) {
	if !found {
		if p.Answer == playbook.AnswerYesNo && len(ex) > 0 {
			// a clause that excludes the provision is shown as such even
			// below the threshold
			if a := polarityAnswer(p, ex[:1]); a.Excludes && exclusionWeight(p, ex[0].Text) >= minExclusionWeight {
				return a, ex
			}
		}
		return NotFound(), ex
	}
	if c != nil {
		var at []detect.Extract
		var a *Answer
		switch p.Answer {
		case playbook.AnswerParty:
			// The parties are read where a contract introduces them (its
			// preamble and signature block), not where the detector finds
			// a clause that mentions their names.
			at, a = partyAnswer(c, scores)
		case playbook.AnswerText:
			// A text cell whose evidence is the contract's opening asks
			// for its title: read where the contract writes it.
			at, a = titleAnswer(c, ex, scores)
		case playbook.AnswerEndDate:
			// A term clause that defers to a definition ("for the
			// Contract Period") is read from the definition.
			at, a = definedEndAnswer(c, p, ex, scores)
		}
		if a != nil {
			return a, at
		}
	}
	a := readAnswer(p, c, ex)
	if p.Answer == playbook.AnswerYesNo {
		// who holds the right, on what terms
		ex, a = withHolders(c, p, ex, a, scores)
	}
	return a, ex
}

// What the answer readers find in a whole contract once, kept with the
// prepared contract (detect.Prepared.Memo).
type memoKey int

const (
	runningKey memoKey = iota // running lines (runningLines)
	datesKey                  // defined dates (datesDefinedIn)
	partiesKey                // the parties (partyReads)
	termsKey                  // the terms defined in quotation marks (definesTerm)
)

// runningLines returns c's running lines, found on first use.
func runningLines(c *detect.Prepared) []document.Span {
	return c.Memo(runningKey, func() any { return repeatedLines(c.Index(), c.Doc().Doc.Text) }).([]document.Span)
}

// datesDefinedIn returns the dates c defines, found on first use.
func datesDefinedIn(c *detect.Prepared) map[string]string {
	return c.Memo(datesKey, func() any { return definedDates(c.Doc().Doc.Text) }).(map[string]string)
}
