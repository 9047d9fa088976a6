package review

import (
	"context"
	"fmt"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// Reviewer finds a playbook's provisions in contracts, offline. It is safe
// for concurrent use once built.
type Reviewer struct {
	pb *playbook.Playbook
	// det is kept for the run's fingerprint: the detectors the rows were
	// found with.
	det *detect.Detectors
	sc  *detect.Scorer
}

// NewReviewer builds a reviewer for pb. Provisions with a trained detector
// in det (matched by Provision.Detector, else by name, case-insensitively)
// use it; the others are found zero-shot from their definition, keywords
// and examples, calibrated by det's zero-shot calibration. det may be nil:
// every provision is then found zero-shot with an uncalibrated default.
func NewReviewer(pb *playbook.Playbook, det *detect.Detectors) (*Reviewer, error) {
	if pb == nil || len(pb.Provisions) == 0 {
		return nil, fmt.Errorf("review: empty playbook")
	}
	return &Reviewer{pb: pb, det: det, sc: detect.NewScorer(pb, det)}, nil
}

// Playbook returns the reviewer's playbook.
func (r *Reviewer) Playbook() *playbook.Playbook { return r.pb }

// MatchQuestion returns the playbook provisions a question asks about, best
// first (detect.Scorer.MatchQuestion).
func (r *Reviewer) MatchQuestion(question string) []detect.QuestionMatch {
	return r.sc.MatchQuestion(question)
}

// AskedProvisions returns the provisions a question clearly asks about
// (detect.Scorer.AskedProvisions).
func (r *Reviewer) AskedProvisions(question string) []string { return r.sc.AskedProvisions(question) }

// Review returns one contract's row: a cell per provision, in playbook order.
func (r *Reviewer) Review(ctx context.Context, d detect.Doc) (Row, error) {
	row := Row{DocID: d.ID, DocName: d.Name}
	if d.Doc == nil {
		return row, fmt.Errorf("review: document %q has no text", d.Name)
	}
	if err := ctx.Err(); err != nil {
		return row, err
	}
	prep, err := detect.Prepare(d)
	if err != nil {
		return row, err
	}
	return r.ReviewPrepared(ctx, prep)
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

func (r *Reviewer) cell(prep *prepared, i int, scores []float64) Cell {
	p := &r.pb.Provisions[i]
	cell := Cell{DocID: prep.Doc().ID, DocName: prep.Doc().Name, Provision: p.Name, Method: r.sc.Method(i), Answer: notFoundAnswer()}
	if len(prep.Passages()) == 0 {
		return cell
	}
	picks := detect.Pick(prep.Prepared, scores)
	cell.Confidence = r.sc.Confidence(i, scores[picks[0]])
	for _, k := range picks {
		cell.Extracts = append(cell.Extracts, prep.Extract(k, scores[k]))
	}
	cell.Found = cell.Confidence >= r.sc.Threshold(i)
	cell.Answer = notFoundAnswer()
	if !cell.Found {
		if p.Answer == playbook.AnswerYesNo {
			// a clause that excludes the provision is shown as such even
			// below the threshold
			if a := polarityAnswer(p, cell.Extracts[:1]); a.Excludes && exclusionWeight(p, cell.Extracts[0].Text) >= minExclusionWeight {
				cell.Answer = a
			}
		}
		return cell
	}
	if p.Answer == playbook.AnswerParty {
		// The parties are read where a contract introduces them (its
		// preamble and signature block), not where the detector finds a
		// clause that mentions their names.
		if ex, a := prep.partyAnswer(scores); a != nil {
			cell.Extracts, cell.Answer, cell.Value = ex, a, a.Text
			return cell
		}
	}
	if p.Answer == playbook.AnswerText {
		// A text cell whose evidence is the contract's opening asks for
		// its title: read where the contract writes it.
		if ex, a := prep.titleAnswer(cell.Extracts, scores); a != nil {
			cell.Extracts, cell.Answer, cell.Value = ex, a, a.Text
			return cell
		}
	}
	if p.Answer == playbook.AnswerEndDate {
		if ex, a := prep.definedEndAnswer(p, cell.Extracts, scores); a != nil {
			cell.Extracts, cell.Answer, cell.Value = ex, a, a.Text
			return cell
		}
	}
	cell.Answer = readAnswer(p, prep, cell.Extracts)
	cell.Value = cell.Answer.Text
	if cell.Answer.Excludes {
		// A clause that excludes the provision is evidence, not the
		// provision: the cell is not found, and shows why.
		cell.Found, cell.Value = false, ""
	}
	return cell
}

// ReviewPrepared is Review over a contract already prepared.
func (r *Reviewer) ReviewPrepared(ctx context.Context, prep *detect.Prepared) (Row, error) {
	row := Row{DocID: prep.Doc().ID, DocName: prep.Doc().Name}
	if err := ctx.Err(); err != nil {
		return row, err
	}
	scores := r.sc.Scores(prep)
	p := &prepared{prep}
	for i := range r.pb.Provisions {
		row.Cells = append(row.Cells, r.cell(p, i, scores[i]))
	}
	return row, nil
}
