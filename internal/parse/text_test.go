package parse

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/parse/bombtest"
)

func TestParseText(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"utf8 kept byte for byte", []byte("1. Term\n\fPage 2 — café\t€\n"), "1. Term\n\fPage 2 — café\t€\n"},
		{"utf8 bom kept as a space", []byte("\xEF\xBB\xBFAgreement\n"), " Agreement\n"},
		{"crlf and lone cr", []byte("a\r\nb\rc\n"), "a\nb\nc\n"},
		{"utf16le bom", append([]byte{0xFF, 0xFE}, encodeUTF16LE("Hé\r\nx")...), "Hé\nx"},
		{"utf16be bom", []byte{0xFE, 0xFF, 0, 'H', 0, 0xE9, 0, '\n'}, "Hé\n"},
		{"utf16le without bom", encodeUTF16LE("Section 1. Definitions\n"), "Section 1. Definitions\n"},
		{"windows-1252", []byte("Caf\xe9 \x93quoted\x94 \x80 5"), "Café “quoted” € 5"},
		{"mostly utf8, one bad byte", []byte("café café \xff end"), "café café \uFFFD end"},
		{"controls replaced one for one", []byte("a\x01b\x7fc\u0085d and some more ordinary text"), "a b c d and some more ordinary text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := parseText(tt.in, nil)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Text != tt.want {
				t.Errorf("text = %q, want %q", doc.Text, tt.want)
			}
			if doc.Format != "text" {
				t.Errorf("format = %q", doc.Format)
			}
		})
	}
}

func TestParseTextBinary(t *testing.T) {
	for name, in := range map[string][]byte{
		"nul":      []byte("PK\x03\x04\x00\x00binary"),
		"controls": bytes.Repeat([]byte{0x01, 0x02, 0x03, 'a'}, 100),
	} {
		_, err := parseText(in, nil)
		if !errors.Is(err, ErrNotText) || !strings.Contains(err.Error(), "looks like binary data, not text") {
			t.Errorf("%s: err = %v, want ErrNotText", name, err)
		}
	}
}

// TestParseTextFixtures checks the files under testdata/text against their
// .want files.
func TestParseTextFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/text/*.txt")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(strings.TrimSuffix(f, ".txt") + ".want")
		if err != nil {
			t.Fatal(err)
		}
		doc, err := parseText(data, nil)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if doc.Text != string(want) {
			t.Errorf("%s: text = %q, want %q", f, doc.Text, want)
		}
	}
}

// TestParseTextCorpusIdentity checks that benchmark corpus files come out
// byte-identical (a leading byte-order mark as one space), so benchmark
// offsets hold. Skipped without the data.
func TestParseTextCorpusIdentity(t *testing.T) {
	files, _ := filepath.Glob("../../../shared/data/legalbenchrag/corpus/*/*.txt")
	if len(files) == 0 {
		t.Skip("benchmark corpus not present")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := parseText(data, nil)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		want := string(data)
		if rest, ok := strings.CutPrefix(want, "\uFEFF"); ok {
			want = " " + rest
		}
		if doc.Text != want {
			t.Errorf("%s: canonical text differs from the file", f)
		}
	}
}

func FuzzParseText(f *testing.F) {
	for _, s := range []string{"hello\n", "\xEF\xBB\xBFx\r\n", "\xFF\xFEa\x00", "caf\xe9", "\x00\x01", "a\rb"} {
		f.Add([]byte(s))
	}
	for _, b := range bombtest.Seeds("txt") {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := parseText(data, nil)
		if err != nil {
			return
		}
		checkDoc(t, doc)
	})
}

// checkDoc asserts the invariants every parser guarantees: valid UTF-8,
// no control characters but \n, \t and \f, blocks inside the text.
func checkDoc(t *testing.T, doc *document.Document) {
	t.Helper()
	if !utf8.ValidString(doc.Text) {
		t.Fatalf("text is not valid UTF-8: %q", doc.Text)
	}
	for _, r := range doc.Text {
		if isBadControl(r) || r == '\r' {
			t.Fatalf("text holds control character %U: %q", r, doc.Text)
		}
	}
	n := doc.Runes()
	for _, b := range doc.Blocks {
		if b.Span.Start < 0 || b.Span.End > n || b.Span.Start >= b.Span.End {
			t.Fatalf("block %+v out of bounds (text has %d code points)", b, n)
		}
	}
}

func encodeUTF16LE(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}
