package review

import (
	"context"
	"fmt"
	"sort"

	"github.com/pakton/pakton/internal/clause"
)

// Reviewer finds a playbook's provisions in contracts, offline. It is safe
// for concurrent use once built.
type Reviewer struct {
	pb    *Playbook
	det   *Detectors
	provs []compiled // one per provision, in playbook order
	// The trained models' weights, compiled for speed: every feature any
	// model uses gets a row of one weight per provision.
	featRow map[uint32]int32
	weights []float32 // len(featRow) × len(provs)
	zs      *zeroShot
	// prior is the zero-shot prior's weight of each generic feature, per
	// distinct calibration (compiled once).
	prior map[uint32]float64
}

// compiled is one provision's finder.
type compiled struct {
	model *Model // nil: found zero-shot
	cal   Calibration
}

// NewReviewer builds a reviewer for pb. Provisions with a trained detector
// in det (matched by Provision.Detector, else by name, case-insensitively)
// use it; the others are found zero-shot from their definition, keywords
// and examples, calibrated by det's zero-shot calibration. det may be nil:
// every provision is then found zero-shot with an uncalibrated default.
func NewReviewer(pb *Playbook, det *Detectors) (*Reviewer, error) {
	if pb == nil || len(pb.Provisions) == 0 {
		return nil, fmt.Errorf("review: empty playbook")
	}
	r := &Reviewer{pb: pb, det: det, featRow: map[uint32]int32{}}
	P := len(pb.Provisions)
	for i := range pb.Provisions {
		c := compiled{model: det.lookup(&pb.Provisions[i]), cal: det.calibration()}
		r.provs = append(r.provs, c)
		if c.model == nil {
			continue
		}
		names := make([]string, 0, len(c.model.Weights))
		for name := range c.model.Weights {
			names = append(names, name)
		}
		sort.Strings(names) // features sharing a hash add up in a fixed order
		for _, name := range names {
			w := c.model.Weights[name]
			id := featureID(name)
			row, ok := r.featRow[id]
			if !ok {
				row = int32(len(r.featRow))
				r.featRow[id] = row
				r.weights = append(r.weights, make([]float32, P)...)
			}
			r.weights[int(row)*P+i] += float32(w)
		}
	}
	r.zs = newZeroShot(pb, det)
	if cal := det.calibration(); len(cal.Prior) > 0 {
		r.prior = map[uint32]float64{}
		for _, name := range sortedKeys(cal.Prior) {
			r.prior[featureID(name)] += cal.Prior[name]
		}
	}
	return r, nil
}

// Playbook returns the reviewer's playbook.
func (r *Reviewer) Playbook() *Playbook { return r.pb }

// Review returns one contract's row: a cell per provision, in playbook order.
func (r *Reviewer) Review(ctx context.Context, d Doc) (Row, error) {
	row := Row{DocID: d.ID, DocName: d.Name}
	if d.Doc == nil {
		return row, fmt.Errorf("review: document %q has no text", d.Name)
	}
	if err := ctx.Err(); err != nil {
		return row, err
	}
	return r.ReviewPrepared(ctx, &Prepared{p: prepare(d)})
}

// scoreAll returns, for every provision, every passage's probability of
// holding it.
func (r *Reviewer) scoreAll(prep *prepared) [][]float64 {
	P := len(r.provs)
	zs := r.zs.scores(prep) // [provision][passage]
	out := make([][]float64, P)
	for i := range out {
		out[i] = make([]float64, len(prep.passages))
	}
	acc := make([]float64, P)
	for k, feats := range prep.feats {
		clear(acc)
		prior := 0.0
		for _, f := range feats {
			prior += r.prior[f]
			row, ok := r.featRow[f]
			if !ok {
				continue
			}
			w := r.weights[int(row)*P : int(row)*P+P]
			for i, v := range w {
				acc[i] += float64(v)
			}
		}
		for i, c := range r.provs {
			if c.model != nil {
				out[i][k] = sigmoid(c.model.Bias + acc[i] + c.model.ZeroShotWeight*zs[i][k])
			} else {
				out[i][k] = sigmoid(c.cal.A*zs[i][k] + c.cal.B + prior)
			}
		}
	}
	return out
}

// confidence turns the best passage's probability into the cell's.
func (c compiled) confidence(best float64) float64 {
	if c.model == nil {
		return c.cal.confidence(best)
	}
	a, b := c.model.Platt[0], c.model.Platt[1]
	if a == 0 && b == 0 {
		return best
	}
	return sigmoid(a*logit(best) + b)
}

func (c compiled) threshold() float64 {
	if c.model != nil {
		return c.model.Threshold
	}
	return c.cal.Threshold
}

func (c compiled) method() string {
	if c.model != nil {
		return "detector"
	}
	return "zero-shot"
}

func (r *Reviewer) cell(prep *prepared, i int, scores []float64) Cell {
	p := &r.pb.Provisions[i]
	c := r.provs[i]
	cell := Cell{DocID: prep.doc.ID, DocName: prep.doc.Name, Provision: p.Name, Method: c.method(), Answer: notFoundAnswer()}
	if len(prep.passages) == 0 {
		return cell
	}
	picks := pick(prep, scores)
	cell.Confidence = c.confidence(scores[picks[0]])
	for _, k := range picks {
		cell.Extracts = append(cell.Extracts, prep.extract(k, scores[k]))
	}
	cell.Found = cell.Confidence >= c.threshold()
	cell.Answer = notFoundAnswer()
	if !cell.Found {
		if p.Answer == AnswerYesNo {
			// a clause that excludes the provision is shown as such even
			// below the threshold
			if a := polarityAnswer(p, cell.Extracts[:1]); a.Excludes && exclusionWeight(p, cell.Extracts[0].Text) >= minExclusionWeight {
				cell.Answer = a
			}
		}
		return cell
	}
	if p.Answer == AnswerParty {
		// The parties are read where a contract introduces them (its
		// preamble and signature block), not where the detector finds a
		// clause that mentions their names.
		if ex, a := prep.partyAnswer(scores); a != nil {
			cell.Extracts, cell.Answer, cell.Value = ex, a, a.Text
			return cell
		}
	}
	if p.Answer == AnswerText {
		// A text cell whose evidence is the contract's opening asks for
		// its title: read where the contract writes it.
		if ex, a := prep.titleAnswer(cell.Extracts, scores); a != nil {
			cell.Extracts, cell.Answer, cell.Value = ex, a, a.Text
			return cell
		}
	}
	if p.Answer == AnswerEndDate {
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

// pick chooses the passages returned for a cell: the best one, then the
// next best while they score at least pickRatio of the best (a provision
// often runs over several clauses: a term and its renewal, a licence grant
// and its restrictions), at most pickMax passages within a character
// budget, returned best first.
func pick(prep *prepared, scores []float64) []int {
	order := rankOf(scores)
	best := order[0]
	picks := []int{best}
	budget := pickBudget - prep.passages[best].span.Len()
	for _, k := range order[1:] {
		if len(picks) >= pickMax || budget <= 0 || scores[k] < pickRatio*scores[best] {
			break
		}
		if prep.passages[k].span.Len() > budget {
			continue
		}
		budget -= prep.passages[k].span.Len()
		picks = append(picks, k)
	}
	return picks
}

// The passages returned for one cell: at most pickMax, within pickBudget
// code points, each scoring at least pickRatio of the best.
const (
	pickMax    = 5
	pickBudget = 2400
	pickRatio  = 0.15
)

// rankOf returns passage indices by descending score (ties in document order).
func rankOf(scores []float64) []int {
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })
	return order
}

// treeOf returns the document's tree, parsing it when absent.
func treeOf(d Doc) *clause.Tree {
	if d.Tree != nil && len(d.Tree.Nodes) > 0 {
		return d.Tree
	}
	return clause.Parse(d.Doc)
}

// Prepared is a contract analyzed once for review: cut into passages, its
// words and features extracted. Several reviewers (or one reviewer called
// several times) can share it.
type Prepared struct{ p *prepared }

// Doc returns the contract p was prepared from.
func (p *Prepared) Doc() Doc { return p.p.doc }

// Prepare analyzes a contract for review.
func Prepare(d Doc) (*Prepared, error) {
	if d.Doc == nil {
		return nil, fmt.Errorf("review: document %q has no text", d.Name)
	}
	return &Prepared{p: prepare(d)}, nil
}

// ReviewPrepared is Review over a contract already prepared.
func (r *Reviewer) ReviewPrepared(ctx context.Context, prep *Prepared) (Row, error) {
	row := Row{DocID: prep.p.doc.ID, DocName: prep.p.doc.Name}
	if err := ctx.Err(); err != nil {
		return row, err
	}
	scores := r.scoreAll(prep.p)
	for i := range r.pb.Provisions {
		row.Cells = append(row.Cells, r.cell(prep.p, i, scores[i]))
	}
	return row, nil
}
