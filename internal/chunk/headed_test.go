package chunk

import (
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
)

func TestHeadingLine(t *testing.T) {
	body := "We use industry-standard encryption to protect your information in transit and at rest on our servers."
	for _, c := range []struct {
		prev, h, next string
		want          bool
	}{
		{"We keep records.", "Encryption.", body, true},
		{"We keep records.", "Legal Retention Requirements.", body, true},
		{"We keep records.", "Social Networks", body, true},
		{"We keep records.", "What happens if you do NOT consent?", body, true},
		{"We keep records.", "Our website offers publicly accessible community blogs.", body, false}, // a sentence
		{"We keep records.", "Apple - https://www.apple.com/legal/privacy/", "Google - https://policies.google.com/privacy", false},
		{"We may share it with", "Business Partners", body, false},                       // the sentence runs on
		{"We keep records.", "with our vendors;", body, false},                           // a list item
		{"We keep records.", "Our contact information is:", body, false},                 // a lead-in
		{"We keep records.", "Encryption.", "short text.", false},                        // nothing to head
		{"We keep records.", "Encryption.", strings.ToLower(body[:1]) + body[1:], false}, // what follows runs on
		{"We keep records.", "Customer support and", body, false},
	} {
		if got := headingLine(c.prev, c.h, c.next); got != c.want {
			t.Errorf("headingLine(%q, %q, …) = %v, want %v", c.prev, c.h, got, c.want)
		}
	}
}

func TestHeadedPiecesStartAtHeadings(t *testing.T) {
	para := func(topic string) string {
		return strings.Repeat("We describe how "+topic+" works for your account and what you can choose about it. ", 4)
	}
	text := "Our policy explains what we do with information.\n" + para("collection") + "\n" +
		"Encryption.\n" + para("encryption") + "\n" +
		"Retention of Your Information\n" + para("retention") + "\n"
	doc := &document.Document{ID: "p", Name: "p.txt", Text: text}
	all := document.Span{Start: 0, End: len([]rune(text))}
	ps := headedPieces(doc, all, 900)
	ix := document.NewIndex(text)
	var starts, headings []string
	for _, p := range ps {
		s := ix.Slice(p.span)
		starts = append(starts, s[:min(len(s), 12)])
		if p.heading != "" {
			headings = append(headings, p.heading)
		}
	}
	for _, want := range []string{"Encryption.\n", "Retention of"} {
		found := false
		for _, s := range starts {
			found = found || strings.HasPrefix(s, want[:min(len(want), len(s))])
		}
		if !found {
			t.Errorf("no piece starts at %q: %q", want, starts)
		}
	}
	if strings.Join(headings, "|") != "Encryption|Retention of Your Information" {
		t.Errorf("headings %q", headings)
	}
	// Pieces cover the text in order, without overlap.
	for i := 1; i < len(ps); i++ {
		if ps[i].span.Start < ps[i-1].span.End {
			t.Errorf("pieces %v and %v overlap", ps[i-1].span, ps[i].span)
		}
	}
	// A text no longer than a unit is one piece, as before.
	if got := headedPieces(doc, document.Span{Start: 0, End: 400}, 900); len(got) != 1 || got[0].heading != "" {
		t.Errorf("short text: %v", got)
	}
	// Units built from it carry the heading.
	in := Build(doc, nil, Options{})
	found := false
	for _, u := range in.Units {
		found = found || u.Heading == "Encryption" && strings.HasPrefix(u.Text, "Encryption.")
	}
	if !found {
		t.Error("no unit headed Encryption")
	}
}
