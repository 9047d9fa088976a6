package parse

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/cfb"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/parse/bombtest"
)

// The fixtures in testdata/wordproc were made by LibreOffice from one
// source, legal.fodt (outline-numbered headings, a two-level lettered and
// roman list, a tracked deletion, a double space, a tab):
//
//	for f in "doc:MS Word 97" "rtf:Rich Text Format" "odt:writer8" "docx:MS Word 2007 XML"; do
//	  soffice --headless --convert-to "$f" legal.fodt; done
//
// Every reader must give the same text and the same headings and list
// items; only the separator after a number differs, as the writer chose it
// per format (a tab in ODT and RTF, nothing in DOC and DOCX).
const legalText = `MASTER SERVICES AGREEMENT

This Agreement is entered into by Alpha Holdings Ltd and Gamma Services Inc.

1.#Definitions

1.1#Interpretation

In this Agreement:

(a)#headings are for convenience only;

(i)#they do not affect interpretation;

(ii)#nor construction.

(b)#the singular includes the plural.

1.2#Notices

Notice must be given within sixty (60) days.

2.#Term

The term is five years.	Renewal is automatic.`

func TestWordProcessorFormatsAgree(t *testing.T) {
	wantBlocks := []string{"heading 0 1.", "heading 1 1.1", "list_item 0 (a)", "list_item 1 (i)", "list_item 1 (ii)", "list_item 0 (b)", "heading 1 1.2", "heading 0 2."}
	for _, tc := range []struct {
		file, format, sep string
	}{
		{"legal.odt", "odt", "\t"},
		{"legal.rtf", "rtf", "\t"},
		{"legal.doc", "doc", ""},
		{"legal.docx", "docx", ""},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "wordproc", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			doc, err := Bytes(context.Background(), tc.file, data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if doc.Format != tc.format {
				t.Errorf("format %q, want %q", doc.Format, tc.format)
			}
			if want := strings.ReplaceAll(legalText, "#", tc.sep); doc.Text != want {
				t.Errorf("text:\n%s\nwant:\n%s", doc.Text, want)
			}
			var got []string
			for _, b := range doc.Blocks {
				if b.Kind == document.BlockParagraph {
					continue
				}
				got = append(got, string(b.Kind)+" "+itoa(b.Level)+" "+b.Label)
				if s := doc.Slice(b.Span); !strings.HasPrefix(s, b.Label) {
					t.Errorf("block %v %q does not start with its label %q", b.Kind, s, b.Label)
				}
			}
			if strings.Join(got, "|") != strings.Join(wantBlocks, "|") {
				t.Errorf("blocks %q, want %q", got, wantBlocks)
			}
		})
	}
}

func itoa(n int) string { return string(rune('0' + n)) }

func TestRTF(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"paragraphs and breaks", `{\rtf1\ansi Hello\par World\line next\tab tabbed\par}`, "Hello\n\nWorld\nnext\ttabbed"},
		{"escapes and specials", `{\rtf1 a\{b\}c\\d\~e\emdash f\lquote g\rquote\par}`, "a{b}c\\d\u00a0e—f‘g’"},
		{"code page 1252 and 1251", `{\rtf1\ansi\ansicpg1252{\fonttbl{\f0 Arial;}{\f1\fcharset204 Arial Cyr;}}\f0 Caf\'e9 \f1\'cf\'f0\'e8\par}`, "Café При"},
		{"unicode with fallback", `{\rtf1\uc1 na\u239?ve \u-10179?\u-8704?\par}`, "naïve 😀"},
		{"hidden and deleted text", `{\rtf1 kept {\v hidden} {\deleted gone}shown\par}`, "kept  shown"},
		{"field result kept, instruction dropped", `{\rtf1 see {\field{\*\fldinst HYPERLINK "x"}{\fldrslt clause 4}}\par}`, "see clause 4"},
		{"ignored destinations", `{\rtf1{\info{\title T}}{\header H}{\*\unknown U}{\footnote F}body\par}`, "body"},
		{"listtext numbering", `{\rtf1{\listtext 1.\tab}\pard\ls1 first\par{\listtext (a)\tab}\pard\ls1\ilvl1 sub\par}`, "1.\tfirst\n\n(a)\tsub"},
		{"table", `{\rtf1\trowd\cellx1000\cellx2000\pard\intbl A\cell B\cell\row\trowd\pard\intbl C\cell D\cell\row\pard after\par}`, "A\tB\nC\tD\n\nafter"},
		{"bin skipped", "{\\rtf1 a{\\pict\\bin3 {}}}b\\par}", "ab"},
		{"unterminated", `{\rtf1 unterminated {\b bold`, "unterminated bold"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := parseRTF([]byte(tc.src), nil)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Text != tc.want {
				t.Errorf("got %q, want %q", doc.Text, tc.want)
			}
		})
	}
	headings, err := parseRTF([]byte(`{\rtf1{\stylesheet{\s0 Normal;}{\s1\outlinelevel0 heading 1;}{\s2 heading 2;}}\pard\s1 Title\par\pard\s2 Sub\par\pard\s0 Body\par}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, b := range headings.Blocks {
		kinds = append(kinds, string(b.Kind)+itoa(b.Level))
	}
	if got := strings.Join(kinds, " "); got != "heading0 heading1 paragraph0" {
		t.Errorf("heading blocks %q", got)
	}
	if _, err := parseRTF([]byte("not rtf"), nil); !errors.Is(err, ErrCorrupt) {
		t.Errorf("non-RTF: %v", err)
	}
	if _, err := parseRTF([]byte(`{\rtf1`+strings.Repeat("{", rtfMaxDepth+5)), nil); !errors.Is(err, ErrCorrupt) {
		t.Errorf("deep nesting: %v", err)
	}
}

// A .doc that is really RTF, DOCX or HTML (Word saves all three under .doc
// when asked) is read as what it is.
func TestDocDisguised(t *testing.T) {
	rtf, err := os.ReadFile(filepath.Join("testdata", "wordproc", "legal.rtf"))
	if err != nil {
		t.Fatal(err)
	}
	docx, err := os.ReadFile(filepath.Join("testdata", "wordproc", "legal.docx"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"rtf": rtf, "docx": docx, "html": []byte("<html><body><p>MASTER SERVICES AGREEMENT</p></body></html>")} {
		doc, err := Bytes(context.Background(), "x.doc", data, Options{})
		if err != nil {
			t.Fatalf("%s as .doc: %v", name, err)
		}
		if doc.Format != "doc" || !strings.HasPrefix(doc.Text, "MASTER SERVICES AGREEMENT") {
			t.Errorf("%s as .doc: format %q, text %.40q", name, doc.Format, doc.Text)
		}
	}
}

// patchWordStream returns the fixture .doc with fn applied to its
// WordDocument stream in place (the stream's bytes are found in the file).
func patchWordStream(t *testing.T, fn func(word []byte)) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "wordproc", "legal.doc"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := cfb.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	word, err := f.Root().Stream("WordDocument")
	if err != nil {
		t.Fatal(err)
	}
	// The stream is at least 4 KiB, so it lies in regular sectors; its
	// first 512 bytes are one sector of the file.
	i := strings.Index(string(data), string(word[:512]))
	if i < 0 {
		t.Fatal("WordDocument stream not found in the file")
	}
	out := append([]byte(nil), data...)
	fn(out[i : i+512])
	return out
}

func TestDocErrors(t *testing.T) {
	encrypted := patchWordStream(t, func(w []byte) { binary.LittleEndian.PutUint16(w[0x0A:], binary.LittleEndian.Uint16(w[0x0A:])|0x0100) })
	if _, err := Bytes(context.Background(), "x.doc", encrypted, Options{}); !errors.Is(err, ErrEncrypted) {
		t.Errorf("encrypted: %v", err)
	}
	word6 := patchWordStream(t, func(w []byte) { binary.LittleEndian.PutUint16(w[2:], 101) })
	t.Setenv("PATH", t.TempDir()) // no antiword
	_, err := Bytes(context.Background(), "x.doc", word6, Options{})
	if !errors.Is(err, ErrMissingTool) || !strings.Contains(err.Error(), "antiword") {
		t.Errorf("Word 6 without antiword: %v", err)
	}
	if _, err := Bytes(context.Background(), "x.doc", []byte("garbage that is no Word file at all"), Options{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("garbage: %v", err)
	}
}

// antiword, when installed, reads what the pure-Go reader hands it.
func TestDocAntiword(t *testing.T) {
	if _, err := exec.LookPath("antiword"); err != nil {
		t.Skip("antiword is not installed (Debian package antiword)")
	}
	data, err := os.ReadFile(filepath.Join("testdata", "wordproc", "legal.doc"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := docWithAntiword(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Meta == nil || doc.Meta.Reader != "antiword" || !strings.Contains(doc.Text, "MASTER SERVICES AGREEMENT") {
		t.Errorf("antiword: meta %+v, text %.60q", doc.Meta, doc.Text)
	}
}

func FuzzRTF(f *testing.F) {
	f.Add([]byte(`{\rtf1\ansi{\fonttbl{\f0\fcharset204 X;}}{\stylesheet{\s1 heading 1;}}\pard\s1 T\par{\listtext 1.\tab}\ls1 a\u233?\'e9\par\trowd\intbl x\cell y\cell\row}`))
	if b, err := os.ReadFile(filepath.Join("testdata", "wordproc", "legal.rtf")); err == nil {
		f.Add(b)
	}
	for _, b := range bombtest.Seeds("rtf") {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := parseRTF(data, nil)
		if err != nil {
			return
		}
		checkBlocks(t, doc)
	})
}

func FuzzDOC(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "wordproc", "legal.doc")); err == nil {
		f.Add(b)
	}
	for _, b := range bombtest.Seeds("doc") {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := readWordBinary(data, nil)
		if err != nil {
			return
		}
		checkBlocks(t, doc)
	})
}

// checkBlocks checks what every parser promises: valid spans inside the
// text, and canonical text.
func checkBlocks(t *testing.T, doc *document.Document) {
	t.Helper()
	n := doc.Runes()
	for _, b := range doc.Blocks {
		if b.Span.Start < 0 || b.Span.End > n || b.Span.End < b.Span.Start {
			t.Fatalf("block %+v outside the text of %d code points", b, n)
		}
	}
	if canonicalText(doc.Text) != doc.Text {
		t.Fatalf("text is not canonical: %q", doc.Text)
	}
}
