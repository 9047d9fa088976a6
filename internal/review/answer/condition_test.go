package answer

import (
	"testing"

	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

func TestParseCondition(t *testing.T) {
	law := &playbook.Provision{Name: "Governing Law", Answer: playbook.AnswerJurisdiction}
	yes := &playbook.Provision{Name: "Termination for Convenience", Answer: playbook.AnswerYesNo}
	end := &playbook.Provision{Name: "Expiration Date", Answer: playbook.AnswerEndDate}
	tests := []struct {
		q          string
		p          *playbook.Provision
		kind, op   string
		value      string
		noneWanted bool
	}{
		{"Which contracts are governed by New York law?", law, CondJurisdiction, "=", "New York", false},
		{"Which contracts are governed by the laws of England and Wales?", law, CondJurisdiction, "=", "England and Wales", false},
		{"Which of our contracts can be terminated for convenience?", yes, "", "", "", true},
		{"Which contracts can be terminated for convenience on more than 60 days' notice?", yes, CondDuration, ">", "60 days", false},
		{"Which contracts let us terminate with at least thirty (30) days notice?", yes, CondDuration, ">=", "30 days", false},
		{"Which contracts cap liability below 1x the fees?", yes, CondMultiple, "<", "1", false},
		{"Which contracts expire before 2025?", end, CondYear, "<", "2025", false},
		{"Which contracts were signed before 2025?", yes, "", "", "", true}, // a year only conditions a date
	}
	for _, tc := range tests {
		c := ParseCondition(tc.q, tc.p)
		if tc.noneWanted {
			if c != nil {
				t.Errorf("%q: condition %+v, want none", tc.q, c)
			}
			continue
		}
		if c == nil || c.Kind != tc.kind || c.Op != tc.op || c.Value != tc.value {
			t.Errorf("%q: condition %+v, want %s %s %s", tc.q, c, tc.kind, tc.op, tc.value)
		}
	}
}

func TestConditionCheck(t *testing.T) {
	type cell struct {
		answer   string
		extracts []detect.Extract
	}
	cellOf := func(answer, text string) cell {
		return cell{answer, []detect.Extract{{Text: text}}}
	}
	tests := []struct {
		c      *Condition
		cell   cell
		want   bool
		decide bool
	}{
		{ParseCondition("governed by New York law", &playbook.Provision{Answer: playbook.AnswerJurisdiction}), cellOf("New York", "the laws of the State of New York"), true, true},
		{ParseCondition("governed by New York law", &playbook.Provision{Answer: playbook.AnswerJurisdiction}), cellOf("Delaware", "the laws of Delaware"), false, true},
		{ParseCondition("on more than 60 days notice", &playbook.Provision{Answer: playbook.AnswerYesNo}), cellOf("Yes", "by giving not less than ninety (90) days' prior written notice"), true, true},
		{ParseCondition("on more than 60 days notice", &playbook.Provision{Answer: playbook.AnswerYesNo}), cellOf("Yes", "upon thirty (30) days written notice"), false, true},
		{ParseCondition("on more than 60 days notice", &playbook.Provision{Answer: playbook.AnswerYesNo}), cellOf("Yes", "at any time, for any reason"), false, false},
		{ParseCondition("a cap below 1x the fees", &playbook.Provision{Answer: playbook.AnswerText}), cellOf("", "shall not exceed two times the fees paid"), false, true},
	}
	for i, tc := range tests {
		v, ok, why := tc.c.Check(tc.cell.answer, tc.cell.extracts)
		if (why == "") != tc.decide || tc.decide && ok != tc.want {
			t.Errorf("%d (%+v): value %q, meets %v, why %q; want meets %v, decided %v", i, tc.c, v, ok, why, tc.want, tc.decide)
		}
	}
}
