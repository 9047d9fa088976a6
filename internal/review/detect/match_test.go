package detect

import (
	"slices"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/review/playbook"
)

func TestAnalyzeNegated(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"terminate without cause", "termin without ¬caus"},
		{"terminate for cause", "termin for caus"},
		// the scope ends at punctuation and at a turn of the sentence
		{"without a breach, or on notice", "without ¬a ¬breach or on notic"},
		{"not for breach but for convenience", "not ¬for ¬breach but for conveni"},
		// a prefix negates one word
		{"a non-exclusive licence", "a non ¬exclus licenc"},
		{"for any reason or no reason", "for any reason or no ¬reason"},
	} {
		if got := strings.Join(analyzeNegated(tc.text), " "); got != tc.want {
			t.Errorf("analyzeNegated(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	// An Excludes text: the "not" heading each item names what the
	// provision is not; a negation inside an item stays.
	got := strings.Join(excludedItems("Not termination for convenience or without cause, and not expiry."), " ")
	if want := "termin for conveni or without ¬caus and expiri"; got != want {
		t.Errorf("excludedItems = %q, want %q", got, want)
	}
}

func TestAboutPart(t *testing.T) {
	for q, want := range map[string]string{
		"Which contracts cap liability, and how much?":                                  "Which contracts cap liability",
		"Which of our contracts can be terminated for convenience, and on what notice?": "Which of our contracts can be terminated for convenience",
		"Which contracts restrict assignment and under which law?":                      "Which contracts restrict assignment",
		"What is the notice period to terminate renewal?":                               "What is the notice period to terminate renewal?",
	} {
		if got := aboutPart(q); got != want {
			t.Errorf("aboutPart(%q) = %q, want %q", q, got, want)
		}
	}
}

// neighbourPlaybook is a playbook of rights that share their words and differ in
// kind, written for this test; the IDF is a stand-in for contract language
// (frequent words low, telling words high).
func neighbourPlaybook(t *testing.T) (*playbook.Playbook, *Detectors) {
	t.Helper()
	pb, err := playbook.ParsePlaybook("neighbours", []byte(`
name: neighbours
provisions:
  - name: Termination for Convenience
    definition: A right to end the contract without having to show a breach or other cause, simply by giving notice.
    excludes: Not termination for breach or insolvency, and not expiry at the end of the term.
    questions: ["Can either party terminate this agreement without cause, and on how much notice?"]
    keywords:
      - {text: convenience, near: [terminate], within: 8, boost: 3}
      - {text: without cause, boost: 3}
    examples: ["Either party may terminate this Agreement for convenience on sixty days' notice."]
    answer: yes_no
  - name: Termination for Cause
    definition: A right to end the contract early because of the other party's material breach or insolvency.
    excludes: Not termination for convenience or without cause, and not expiry at the end of the term.
    questions: ["In which events of default may a party terminate this agreement?"]
    keywords:
      - {text: material breach, near: [terminate], within: 12, boost: 3}
      - {text: for cause, near: [terminate], within: 6, boost: 2}
    examples: ["Either party may terminate this Agreement if the other commits a material breach and fails to cure it within thirty days."]
    answer: yes_no
  - name: Expiration Date
    definition: The date on which the initial term of the contract ends.
    excludes: Not a termination right.
    questions: ["When does this agreement expire?"]
    keywords:
      - {text: expire, boost: 2}
    examples: ["This Agreement expires on the fifth anniversary of the Effective Date."]
    answer: end_date
`))
	if err != nil {
		t.Fatal(err)
	}
	idf := map[string]float64{}
	for _, w := range []string{"the", "a", "of", "to", "or", "and", "for", "on", "this", "which", "be", "can", "either", "parti", "agreement", "contract", "our", "at", "by", "it", "if"} {
		idf[w] = 0.8
	}
	for _, w := range []string{"termin", "end", "notic", "right", "term", "without", "date"} {
		idf[w] = 2.5
	}
	return pb, &Detectors{IDF: idf, DefaultIDF: 5}
}

// TestMatchQuestionKindOfRight: a question about one right is not matched to
// its neighbour because they share words — "for cause" is not "without
// cause" — and a value asked beside the provision does not count.
func TestMatchQuestionKindOfRight(t *testing.T) {
	pb, det := neighbourPlaybook(t)
	s := NewScorer(pb, det)
	for q, want := range map[string]string{
		"Which of our contracts can be terminated for cause?":                        "Termination for Cause",
		"Which contracts can be terminated without cause?":                           "Termination for Convenience",
		"Which of our contracts can be terminated for convenience?":                  "Termination for Convenience",
		"Which contracts can a party terminate for convenience, and on what notice?": "Termination for Convenience",
		"Which contracts may be terminated for a material breach?":                   "Termination for Cause",
	} {
		m := s.MatchQuestion(q)
		if len(m) == 0 || m[0].Provision != want {
			t.Errorf("%q: best %+v, want %s", q, m, want)
		}
		if got := s.AskedProvisions(q); !slices.Equal(got, []string{want}) {
			t.Errorf("%q: asked %v, want [%s]", q, got, want)
		}
	}
	// Without the contrast the neighbour shares the question's words: the
	// convenience right scores lower for "for cause" than "without cause".
	forCause := scoreOf(s.MatchQuestion("Which contracts can be terminated for cause?"), "Termination for Convenience")
	without := scoreOf(s.MatchQuestion("Which contracts can be terminated without cause?"), "Termination for Convenience")
	if forCause >= without {
		t.Errorf("Termination for Convenience: %.3f for cause, %.3f without cause", forCause, without)
	}
}

func scoreOf(m []QuestionMatch, name string) float64 {
	for _, x := range m {
		if x.Provision == name {
			return x.Score
		}
	}
	return 0
}

// TestNeighbours: provisions neighbour each other when they share a
// playbook group or one's Excludes names the other.
func TestNeighbours(t *testing.T) {
	pb, _ := neighbourPlaybook(t)
	pb.Provisions[0].Group, pb.Provisions[1].Group = "Term", "Term"
	pb.Provisions[2].Group = "Dates"
	pb.Provisions[2].Excludes = "Not Termination for Convenience."
	provs := []provData{{idx: 0}, {idx: 1}, {idx: 2}}
	got := neighbours(pb, provs)
	want := [][]int{{1}, {0}, {0}}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("neighbours of %s: %v, want %v", pb.Provisions[i].Name, got[i], want[i])
		}
	}
}

func TestHoldsWord(t *testing.T) {
	for _, tc := range []struct {
		text, word string
		want       bool
	}{
		{"Which agreements grant exclusivity?", "exclusivity", true},
		{"Which agreements grant an exclusive licence?", "exclusivity", false},
		{"Exclusivity.", "exclusivity", true},
		{"a non-compete clause", "non-compete", true},
		{"insurances", "insurance", false},
	} {
		if got := holdsWord(tc.text, tc.word); got != tc.want {
			t.Errorf("holdsWord(%q, %q) = %v", tc.text, tc.word, got)
		}
	}
}
