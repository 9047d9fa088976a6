package review

import "github.com/pakton/pakton/internal/review/detect"

// What the model pass (internal/review/modelpass) builds its cells with: it
// refines an offline row through the Refiner interface and needs the
// offline review's candidates (here) and the answer readers
// (internal/review/answer), nothing of llm or tool.

// MethodModel is Cell.Method for a cell a model pass answered.
const MethodModel = "model"

// Candidates returns, per provision in playbook order, the contract's best
// candidate passages, best first: the contract is analyzed and scored once
// for every provision. A document with no text has none.
func (r *Reviewer) Candidates(d detect.Doc, n int) [][]detect.Extract {
	prep, err := detect.Prepare(d)
	if err != nil {
		return nil
	}
	scores := r.sc.Scores(prep)
	out := make([][]detect.Extract, len(scores))
	for i, s := range scores {
		order := detect.Rank(s)
		for _, k := range order[:min(n, len(order))] {
			out[i] = append(out[i], prep.Extract(k, s[k]))
		}
	}
	return out
}
