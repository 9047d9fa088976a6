package parse

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/parse/bombtest"
)

// Each reader stops at the text limit and the paragraph limit, with an
// error naming the limit, and reads the same file whole under a larger
// limit.
func TestReadersStopAtLimits(t *testing.T) {
	para := "The Supplier shall deliver the Goods within thirty days of each Order."
	many := func(n int, f func(i int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(f(i))
		}
		return b.String()
	}
	for _, tc := range []struct {
		name string
		file string
		data []byte
	}{
		{"text", "a.txt", []byte(many(400, func(int) string { return para + "\n\n" }))},
		{"rtf paragraphs", "a.rtf", []byte(`{\rtf1\ansi ` + many(400, func(int) string { return para + `\par ` }) + `}`)},
		{"rtf one paragraph", "a.rtf", []byte(`{\rtf1\ansi ` + many(400, func(int) string { return para + " " }) + `}`)},
		{"odt paragraphs", "a.odt", odtOf(t, many(400, func(int) string { return "<text:p>" + para + "</text:p>" }), "", nil)},
		{"odt spaces", "a.odt", odtOf(t, many(40, func(int) string { return `<text:p>x<text:s text:c="1000"/>y</text:p>` }), "", nil)},
		{"docx paragraphs", "a.docx", buildDOCX(t, map[string]string{"word/document.xml": many(400, func(int) string { return "<w:p><w:r><w:t>" + para + "</w:t></w:r></w:p>" })})},
		{"html", "a.html", []byte("<html><body>" + many(400, func(int) string { return "<p>" + para + "</p>" }) + "</body></html>")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const limit = 8 << 10 // the files hold about 28 KB of text
			_, err := Bytes(context.Background(), tc.file, tc.data, Options{MaxText: limit})
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "8 KiB") {
				t.Fatalf("with a limit of 8 KiB: %v, want ErrTooLarge naming the limit", err)
			}
			doc, err := Bytes(context.Background(), tc.file, tc.data, Options{MaxText: 1 << 20})
			if err != nil || len(doc.Text) < 20<<10 {
				t.Fatalf("with a limit of 1 MiB: %v (%d bytes of text)", err, len(doc.Text))
			}
		})
	}
	// Paragraphs: one more than the limit.
	text := strings.Repeat("x\n\n", MaxParagraphs+1)
	if _, err := Bytes(context.Background(), "a.txt", []byte(text), Options{}); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "250,000 paragraphs") {
		t.Errorf("%d paragraphs: %v", MaxParagraphs+1, err)
	}
	rtf := `{\rtf1 ` + strings.Repeat(`x\par `, MaxParagraphs+1) + `}`
	if _, err := Bytes(context.Background(), "a.rtf", []byte(rtf), Options{}); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "250,000 paragraphs") {
		t.Errorf("%d RTF paragraphs: %v", MaxParagraphs+1, err)
	}
}

// The bomb kit's small files that amplify are refused or read within the
// limits by the parser alone (the slow suite ingests them all and measures
// memory and time).
func TestBombKitParse(t *testing.T) {
	for _, name := range []string{"msg-dag", "msg-cycle", "tiff-shared-strips", "doc-shared-runs"} {
		c, _ := bombtest.Find(name)
		data, err := c.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		doc, err := Bytes(context.Background(), c.File, data, Options{OCR: OCRAuto})
		switch {
		case err == nil:
			if len(doc.Text) > DefaultMaxText {
				t.Errorf("%s: %d bytes of text", name, len(doc.Text))
			}
		case errors.Is(err, ErrTooLarge), errors.Is(err, ErrMissingTool):
		default:
			t.Errorf("%s: %v, want it read or refused as too large", name, err)
		}
		t.Logf("%s: %v", name, err)
	}
}

// However an RTF, ODT body or HTML file is made, its text never passes the
// limit it is read with.
func FuzzTextLimit(f *testing.F) {
	f.Add("rtf", `{\rtf1 a\par b{\listtext 1.\tab}c\cell d\row \u8364? \'e9}`)
	f.Add("odt", `<text:p>a<text:s text:c="900"/>b</text:p><table:table><table:table-row><table:table-cell><text:p>c</text:p></table:table-cell></table:table-row></table:table>`)
	f.Add("html", `<ul><li>a<li>b<ol><li>c</ol></ul><table><tr><td>x<td>y</table>`)
	f.Fuzz(func(t *testing.T, kind, body string) {
		const limit = 2 << 10
		var (
			name string
			data []byte
		)
		switch kind {
		case "rtf":
			name, data = "a.rtf", []byte(body)
		case "odt":
			name, data = "a.odt", odtOf(t, body, "", nil)
		case "html":
			name, data = "a.html", []byte(body)
		default:
			return
		}
		doc, err := Bytes(context.Background(), name, data, Options{MaxText: limit})
		if err == nil && len(doc.Text) > limit {
			t.Fatalf("%d bytes of text past a limit of %d", len(doc.Text), limit)
		}
	})
}
