package review

import (
	"context"
	"fmt"

	"github.com/pakton/pakton/internal/review/answer"
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
	// nb holds, per provision, the neighbours its Excludes names, beside
	// which its answer is read (answer.ReadAmong).
	nb [][]*playbook.Provision
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
	nb := make([][]*playbook.Provision, len(pb.Provisions))
	for i := range pb.Provisions {
		nb[i] = pb.Excluded(&pb.Provisions[i])
	}
	return &Reviewer{pb: pb, det: det, sc: detect.NewScorer(pb, det), nb: nb}, nil
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

func (r *Reviewer) cell(prep *detect.Prepared, i int, scores []float64) Cell {
	p := &r.pb.Provisions[i]
	cell := Cell{DocID: prep.Doc().ID, DocName: prep.Doc().Name, Provision: p.Name, Method: r.sc.Method(i), Answer: answer.NotFound()}
	if len(prep.Passages()) == 0 {
		return cell
	}
	picks := detect.Pick(prep, scores)
	if p.Answer == playbook.AnswerCarveOuts {
		// the answer is the whole clause: a definition with every
		// exception it lists
		picks = detect.PickClause(prep, scores)
	}
	cell.Confidence = r.sc.Confidence(i, scores[picks[0]])
	for _, k := range picks {
		cell.Extracts = append(cell.Extracts, prep.Extract(k, scores[k]))
	}
	cell.Found = cell.Confidence >= r.sc.Threshold(i)
	cell.Answer, cell.Extracts = answer.ReadAmong(prep, p, r.nb[i], cell.Extracts, scores, cell.Found)
	if !cell.Found && cell.Answer.Kind == answer.KindValue {
		// a value read below the threshold: the contract defines the
		// provision ("“Effective Date” means … the date specified in the
		// preamble hereof"), which is the provision found
		cell.Found = true
	}
	if cell.Found && cell.Method == "zero-shot" && unsaid(p, cell) {
		// nobody labelled the provision: its scorer weighs the words of
		// its definition, and a clause that shares them ("The
		// obligations of Parent to effect the Merger are subject to the
		// following conditions") is not the provision unless it says
		// it in the playbook's defining words
		cell.Answer = &answer.Answer{Kind: answer.KindNotFound, Text: "Not found", Reason: unsaidReason}
	}
	if cell.Found {
		if cell.Answer.Excludes || cell.Answer.Kind == answer.KindNotFound {
			// A clause that excludes the provision is evidence, not the
			// provision; nor is a clause that does not operate (a
			// definition, a recital …) or grants a neighbouring right:
			// the cell is not found, and shows why.
			cell.Found = false
		} else {
			cell.Value = cell.Answer.Text
		}
	}
	return cell
}

// unsaidReason is a zero-shot cell's reason when no clause it read from
// says the provision in its defining words.
const unsaidReason = "no clause found says it in the provision's own words"

// definingBoost is the least boost of a provision's defining keywords: a
// playbook boosts most the words that say the provision ("financing …
// condition", "injunction … enforce specifically"), less those that only
// go with it ("debt financing", "posting of a bond").
const definingBoost = 2

// unsaid reports whether a yes/no cell answered Yes or Conditional is read
// from clauses none of which holds one of p's defining keywords, when p has
// some: neither as the playbook writes it (the phrase, a near phrase within
// its window) nor as every word of it, and of a near phrase, in one sentence.
func unsaid(p *playbook.Provision, cell Cell) bool {
	if p.Answer != playbook.AnswerYesNo || cell.Answer.Kind != answer.KindYes && cell.Answer.Kind != answer.KindConditional {
		return false
	}
	defining := false
	for _, k := range p.Keywords {
		defining = defining || k.Boost >= definingBoost
	}
	if !defining {
		return false
	}
	read := map[int]bool{}
	for _, sp := range cell.Answer.Spans {
		read[sp.Extract] = true
	}
	for i, e := range cell.Extracts {
		if (len(read) == 0 || read[i]) && (detect.KeywordWeight(p, e.Text, definingBoost) > 0 || detect.SaysKeyword(p, e.Text, definingBoost)) {
			return false
		}
	}
	return true
}

// Scores returns, for every provision of the playbook in its order, every
// passage of prep's probability of holding it: what a cell's extracts are
// picked from.
func (r *Reviewer) Scores(prep *detect.Prepared) [][]float64 { return r.sc.Scores(prep) }

// ReviewPrepared is Review over a contract already prepared.
func (r *Reviewer) ReviewPrepared(ctx context.Context, prep *detect.Prepared) (Row, error) {
	row := Row{DocID: prep.Doc().ID, DocName: prep.Doc().Name}
	if err := ctx.Err(); err != nil {
		return row, err
	}
	scores := r.sc.Scores(prep)
	for i := range r.pb.Provisions {
		row.Cells = append(row.Cells, r.cell(prep, i, scores[i]))
	}
	return row, nil
}
