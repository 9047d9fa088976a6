package learnq

import (
	"fmt"
	"slices"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/search/index"
)

// agreement builds a document's plain units: filler clauses and, at
// position at, the clause that answers ("Conversion of Shares").
func agreement(doc string, at int) ([]index.UnitInput, document.Span) {
	var units []index.UnitInput
	var gold document.Span
	pos := 0
	for i := range 20 {
		text := fmt.Sprintf("The parties shall cooperate on matter %d and keep records of filing number %d.", i, i)
		heading := fmt.Sprintf("Covenant %d", i)
		if i == at {
			text = "Each share of common stock shall be converted into the right to receive the merger consideration in cash, without interest."
			heading = "Conversion of Shares"
		}
		sp := document.Span{Start: pos, End: pos + len(text)}
		if i == at {
			gold = sp
		}
		units = append(units, index.UnitInput{Text: text, Spans: []document.Span{sp}, View: index.ViewPlain, Heading: heading})
		units = append(units, index.UnitInput{Text: "context > " + text, Spans: []document.Span{sp}, View: index.ViewAncestors})
		pos = sp.End + 1
	}
	return units, gold
}

func terms(ws []search.Weighted) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Term)
	}
	return out
}

func TestTrainLearnsWhatAnswersSay(t *testing.T) {
	q := index.Analyze("What is the Type of Consideration")
	var ex []Example
	for d := range 4 {
		units, gold := agreement(fmt.Sprint("doc", d), 3+d)
		ex = append(ex, Example{Question: q, Doc: fmt.Sprint("doc", d), Units: units, Gold: []document.Span{gold}})
	}
	m := Train(ex)
	if m.Groups() != 1 {
		t.Fatalf("groups %d, want 1", m.Groups())
	}
	got := m.Expand(q)
	ts := terms(got)
	for _, want := range []string{"convert", "cash", index.HeadMark + "convers"} {
		if !slices.Contains(ts, want) {
			t.Errorf("learnt %v: no %q", ts, want)
		}
	}
	for _, not := range []string{"cooper", "record", index.HeadMark + "coven"} {
		if slices.Contains(ts, not) {
			t.Errorf("learnt %v: %q is used by every unit", ts, not)
		}
	}
	for _, w := range got {
		if w.Weight <= 0 || w.Weight > maxWeight {
			t.Errorf("%s weighs %v, want (0, %v]", w.Term, w.Weight, maxWeight)
		}
	}
	// Asked in other words: no group is like it; its words borrow what the
	// questions using them learnt ("consideration").
	other := m.Expand(index.Analyze("How is the consideration paid?"))
	if len(other) == 0 || len(other) > perWord {
		t.Errorf("a question sharing a word: %v, want 1…%d words", terms(other), perWord)
	}
	for _, w := range other {
		if w.Weight > wordWeight {
			t.Errorf("borrowed word %s weighs %v, more than %v", w.Term, w.Weight, wordWeight)
		}
	}
	if got := m.Expand(index.Analyze("Which law governs?")); len(got) != 0 {
		t.Errorf("an unrelated question got %v", terms(got))
	}
}

func TestTooFewDocumentsTeachNothing(t *testing.T) {
	q := index.Analyze("What is the Type of Consideration")
	var ex []Example
	for d := range minExamples - 1 {
		units, gold := agreement(fmt.Sprint("doc", d), 3)
		ex = append(ex, Example{Question: q, Doc: fmt.Sprint("doc", d), Units: units, Gold: []document.Span{gold}})
	}
	m := Train(ex)
	if m.Groups() != 0 || len(m.Expand(q)) != 0 {
		t.Errorf("learnt from %d documents: %v", len(ex), terms(m.Expand(q)))
	}
	var nilModel *Model
	if nilModel.Expand(q) != nil {
		t.Error("a nil model expands")
	}
}
