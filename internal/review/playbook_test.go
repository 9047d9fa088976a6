package review

import (
	"errors"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/review/playbook"
)

func TestParsePlaybookErrors(t *testing.T) {
	cases := []struct {
		name, yaml, want string
	}{
		{"empty", "", "empty file"},
		{"no provisions", "name: x\n", "lists no provisions"},
		{"unknown top field", "name: x\nprovisons: []\n", `line 2: unknown playbook field "provisons"`},
		{"unknown provision field", "provisions:\n  - name: A\n    definiton: d\n", `line 3: unknown provision field "definiton"`},
		{"missing name", "provisions:\n  - definition: d\n", `line 2: provision 1: field "name" is missing`},
		{"duplicate", "provisions:\n  - name: A\n    definition: d\n  - name: a\n    definition: e\n", `line 4: provision "a": field "name" repeats the provision at line 2`},
		{"bad answer", "provisions:\n  - name: A\n    definition: d\n    answer: colour\n", `field "answer": unknown answer format "colour"`},
		{"nothing to find", "provisions:\n  - name: A\n", `field "definition" is missing`},
		{"bad keyword", "provisions:\n  - name: A\n    keywords:\n      - text: x\n        nearby: [y]\n", `line 5: unknown keyword field "nearby"`},
		{"negative boost", "provisions:\n  - name: A\n    keywords:\n      - text: x\n        boost: -1\n", "must not be negative"},
		{"syntax", "provisions: [\n", "line"},
		{"risk without question", "provisions:\n  - name: A\n    definition: d\n    risks:\n      - answer: yes_no\n", "has no question"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := playbook.ParsePlaybook("pb.yaml", []byte(c.yaml))
			if err == nil {
				t.Fatalf("no error for %q", c.yaml)
			}
			if !errors.Is(err, playbook.ErrPlaybook) {
				t.Errorf("error %v does not wrap ErrPlaybook", err)
			}
			if !strings.Contains(err.Error(), "pb.yaml") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q: want the file name and %q", err, c.want)
			}
		})
	}
}

func TestParsePlaybookDefaults(t *testing.T) {
	pb, err := playbook.ParsePlaybook("pb.yaml", []byte(`
name: Deal room
provisions:
  - name: Change of Control
    definition: A right that applies when a party's ownership changes.
    keywords:
      - change of control
      - text: merger
        near: [terminate, consent]
    risks:
      - Can the counterparty terminate on a change of control?
      - question: How many days' notice?
        answer: duration
`))
	if err != nil {
		t.Fatal(err)
	}
	p := pb.Provision("change of control")
	if p == nil {
		t.Fatal("provision not found by case-insensitive name")
	}
	if p.Answer != playbook.AnswerText {
		t.Errorf("answer default = %q, want text", p.Answer)
	}
	if k := p.Keywords[0]; k.Text != "change of control" || k.Boost != 1 || k.Within != 0 {
		t.Errorf("plain keyword = %+v", k)
	}
	if k := p.Keywords[1]; k.Within != 12 || len(k.Near) != 2 {
		t.Errorf("near keyword = %+v, want within 12", k)
	}
	if r := p.Risks[0]; r.Answer != playbook.AnswerYesNo || !strings.HasPrefix(r.Question, "Can") {
		t.Errorf("plain risk = %+v", r)
	}
	if r := p.Risks[1]; r.Answer != playbook.AnswerDuration {
		t.Errorf("risk answer = %q", r.Answer)
	}
}

func TestBuiltinPlaybookParses(t *testing.T) {
	pb, det := Builtin()
	if len(pb.Provisions) == 0 || det == nil {
		t.Fatal("built-in playbook or detectors empty")
	}
}
