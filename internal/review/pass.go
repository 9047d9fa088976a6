package review

import (
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// What the model pass (internal/review/modelpass) builds its cells with: it
// refines an offline row through the Refiner interface and needs the
// offline review's candidates and answer readers, nothing of llm or tool
// here.

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

// NotFoundAnswer is the answer of a cell that was not found.
func NotFoundAnswer() *Answer { return notFoundAnswer() }

// AnswerFromModel is the answer of a cell the model pass found, whose value
// (normalised) is v: the offline reading of the verified quotations when it
// reads the same value (it has the spans), else v with the span where the
// quotations write it verbatim, if they do.
func AnswerFromModel(p *playbook.Provision, v string, ex []detect.Extract) *Answer {
	return answerFromModel(p, v, ex)
}

// ReadValue is the value a found cell with extracts ex shows (the offline
// readers, without a prepared contract).
func ReadValue(p *playbook.Provision, ex []detect.Extract) string { return readValue(p, nil, ex) }

// Perpetual reports whether a value reads as perpetual ("in perpetuity",
// "indefinitely").
func Perpetual(v string) bool { return rePerpetual().MatchString(v) }
