package review

import (
	"testing"

	"github.com/pakton/pakton/internal/document"
)

// extractsOf makes extracts of the given texts, laid out one after another
// in an imaginary contract (so spans are distinct and non-zero).
func extractsOf(texts ...string) []Extract {
	var ex []Extract
	at := 100
	for _, t := range texts {
		n := len([]rune(t))
		ex = append(ex, Extract{Span: document.Span{Start: at, End: at + n}, Text: t})
		at += n + 50
	}
	return ex
}

// spanText returns the text of an answer span, read from its extract.
func spanText(t *testing.T, ex []Extract, sp AnswerSpan) string {
	t.Helper()
	if sp.Extract < 0 || sp.Extract >= len(ex) {
		t.Fatalf("span %+v names extract %d of %d", sp, sp.Extract, len(ex))
	}
	e := ex[sp.Extract]
	if sp.Span.Start < e.Span.Start || sp.Span.End > e.Span.End || sp.Span.Len() == 0 {
		t.Fatalf("span %+v is not inside its extract %+v", sp.Span, e.Span)
	}
	r := []rune(e.Text)
	return string(r[sp.Span.Start-e.Span.Start : sp.Span.End-e.Span.Start])
}

func TestReadAnswerSpans(t *testing.T) {
	for _, c := range []struct {
		format   AnswerFormat
		texts    []string
		text     string
		spanText []string
	}{
		{AnswerJurisdiction, []string{"12. Governing Law", "This Agreement is governed by the laws of the State of New York."}, "New York", []string{"New York"}},
		{AnswerDate, []string{"This Agréement is dated as of March 1, 2019."}, "2019-03-01", []string{"March 1, 2019"}},
		{AnswerDuration, []string{"Thereafter it renews for successive one (1) year terms."}, "1 year", []string{"one (1) year"}},
		{AnswerYesNo, []string{"Either party may terminate this Agreement for convenience."}, "Yes", nil},
		{AnswerParty, []string{`This Agreement is made by and between Acme LLC ("Acme") and Beta GmbH ("Supplier").`}, "Acme LLC (Acme); Beta GmbH (Supplier)",
			[]string{"Acme LLC", "Acme", "Beta GmbH", "Supplier"}},
	} {
		ex := extractsOf(c.texts...)
		a := readAnswer(&Provision{Name: "p", Answer: c.format}, nil, ex)
		if a.Text != c.text {
			t.Errorf("%s: text %q, want %q", c.format, a.Text, c.text)
		}
		var got []string
		for _, sp := range a.Spans {
			got = append(got, spanText(t, ex, sp))
		}
		if len(got) != len(c.spanText) {
			t.Errorf("%s: spans read %q, want %q", c.format, got, c.spanText)
			continue
		}
		for i := range got {
			if got[i] != c.spanText[i] {
				t.Errorf("%s: span %d reads %q, want %q", c.format, i, got[i], c.spanText[i])
			}
		}
	}
}
