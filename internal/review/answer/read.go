package answer

import (
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// Read reads the answer of provision p in a prepared contract from the
// extracts chosen for it (best first; scores are every passage's
// probability for p), and returns the extracts the answer was read from
// with it. found says whether the provision was found: a cell below its
// threshold is not found, unless its best extract is a clause that
// excludes a yes/no provision, shown as such. A found cell whose evidence
// excludes the provision gets an answer with Excludes set.
func Read(prep *detect.Prepared, p *playbook.Provision, ex []detect.Extract, scores []float64, found bool) ([]detect.Extract, *Answer) {
	if !found {
		if p.Answer == playbook.AnswerYesNo {
			// a clause that excludes the provision is shown as such even
			// below the threshold
			if a := polarityAnswer(p, ex[:1]); a.Excludes && exclusionWeight(p, ex[0].Text) >= minExclusionWeight {
				return ex, a
			}
		}
		return ex, NotFound()
	}
	pp := &prepared{prep}
	if p.Answer == playbook.AnswerParty {
		// The parties are read where a contract introduces them (its
		// preamble and signature block), not where the detector finds a
		// clause that mentions their names.
		if ex, a := pp.partyAnswer(scores); a != nil {
			return ex, a
		}
	}
	if p.Answer == playbook.AnswerText {
		// A text cell whose evidence is the contract's opening asks for
		// its title: read where the contract writes it.
		if ex, a := pp.titleAnswer(ex, scores); a != nil {
			return ex, a
		}
	}
	if p.Answer == playbook.AnswerEndDate {
		if ex, a := pp.definedEndAnswer(p, ex, scores); a != nil {
			return ex, a
		}
	}
	return ex, readAnswer(p, pp, ex)
}

// prepared is the answer readers' view of a prepared contract: the
// methods that read a cell's answer in its context hang on it.
type prepared struct{ *detect.Prepared }

// What the answer readers find in a whole contract once, kept with the
// prepared contract (detect.Prepared.Memo).
type memoKey int

const (
	runningKey memoKey = iota // running lines (answer_pick.go)
	datesKey                  // defined dates (value_end.go definedDates)
)

// runningLines returns the contract's running lines, found on first use.
func (p *prepared) runningLines() []document.Span {
	return p.Memo(runningKey, func() any { return repeatedLines(p.Index(), p.Doc().Doc.Text) }).([]document.Span)
}

// definedDates returns the dates the contract defines, found on first use.
func (p *prepared) definedDates() map[string]string {
	return p.Memo(datesKey, func() any { return definedDates(p.Doc().Doc.Text) }).(map[string]string)
}
