package review

import (
	"context"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
	"sync/atomic"
	"testing"
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
	cell := func(value, text string) Cell {
		return Cell{Found: true, Value: value, Extracts: []detect.Extract{{Text: text}}}
	}
	tests := []struct {
		c      *Condition
		cell   Cell
		want   bool
		decide bool
	}{
		{ParseCondition("governed by New York law", &playbook.Provision{Answer: playbook.AnswerJurisdiction}), cell("New York", "the laws of the State of New York"), true, true},
		{ParseCondition("governed by New York law", &playbook.Provision{Answer: playbook.AnswerJurisdiction}), cell("Delaware", "the laws of Delaware"), false, true},
		{ParseCondition("on more than 60 days notice", &playbook.Provision{Answer: playbook.AnswerYesNo}), cell("Yes", "by giving not less than ninety (90) days' prior written notice"), true, true},
		{ParseCondition("on more than 60 days notice", &playbook.Provision{Answer: playbook.AnswerYesNo}), cell("Yes", "upon thirty (30) days written notice"), false, true},
		{ParseCondition("on more than 60 days notice", &playbook.Provision{Answer: playbook.AnswerYesNo}), cell("Yes", "at any time, for any reason"), false, false},
		{ParseCondition("a cap below 1x the fees", &playbook.Provision{Answer: playbook.AnswerText}), cell("", "shall not exceed two times the fees paid"), false, true},
	}
	for i, tc := range tests {
		v, ok, why := tc.c.Check(tc.cell)
		if (why == "") != tc.decide || tc.decide && ok != tc.want {
			t.Errorf("%d (%+v): value %q, meets %v, why %q; want meets %v, decided %v", i, tc.c, v, ok, why, tc.want, tc.decide)
		}
	}
}

// TestDealRoomCached: a deal-room question lists the contracts that have
// the provision it asks about and counts the others; the second question
// about the same provision is answered from the cache, and a changed
// contract is reviewed again.
func TestDealRoomCached(t *testing.T) {
	var loads atomic.Int32
	f, err := NewBuiltinFinder(exampleLoader(t, &loads))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	docs := []DealRoomDoc{{ID: "master-services-agreement.txt", Name: "msa", Hash: "a"}, {ID: "mutual-nda.md", Name: "nda", Hash: "b"}}
	dr, err := f.DealRoom(ctx, "Which of our contracts can be terminated for convenience?", docs, DealRoomOptions{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if dr == nil || dr.Provision != "Termination for Convenience" || len(dr.Rows) != 1 || dr.Rows[0].DocID != "master-services-agreement.txt" || dr.Lacking != 1 || dr.Cached != 0 {
		t.Fatalf("deal room %+v", dr)
	}
	if dr.Rows[0].Cell.Answer == nil || len(dr.Rows[0].Cell.Extracts) == 0 {
		t.Errorf("row without an answer or clause: %+v", dr.Rows[0])
	}
	again, err := f.DealRoom(ctx, "Can either party terminate for convenience?", docs, DealRoomOptions{CacheDir: dir})
	if err != nil || again.Cached != 2 || len(again.Rows) != 1 {
		t.Fatalf("second question: %+v, %v", again, err)
	}
	docs[1].Hash = "changed"
	third, err := f.DealRoom(ctx, "Can either party terminate for convenience?", docs, DealRoomOptions{CacheDir: dir})
	if err != nil || third.Cached != 1 {
		t.Fatalf("after a change: %+v, %v", third, err)
	}
	// Governing law with a condition: the NDA's English law does not meet it.
	gl, err := f.DealRoom(ctx, "Which contracts are governed by New York law?", docs, DealRoomOptions{})
	if err != nil || gl.Condition == nil || gl.Condition.Value != "New York" || len(gl.Rows) != 1 || gl.NotMatching != 1 {
		t.Fatalf("governing law: %+v, %v", gl, err)
	}
	// A question about no provision: nothing (the caller searches).
	if none, err := f.DealRoom(ctx, "What colour is the sky?", docs, DealRoomOptions{}); err != nil || none != nil {
		t.Errorf("no provision: %+v, %v", none, err)
	}
}
