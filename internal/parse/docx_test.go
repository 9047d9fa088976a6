package parse

import (
	"archive/zip"
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/parse/bombtest"
)

const wNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"`

// buildDOCX writes a zip holding parts (name → content). A body without an
// XML root is wrapped in w:document/w:body.
func buildDOCX(t testing.TB, parts map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, content := range parts {
		if name == "word/document.xml" && !strings.HasPrefix(content, "<?xml") && !strings.HasPrefix(content, "<w:document") {
			content = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ` + wNS + `><w:body>` + content + `</w:body></w:document>`
		}
		if (name == "word/numbering.xml" || name == "word/styles.xml") && !strings.HasPrefix(content, "<?xml") {
			root := "w:numbering"
			if name == "word/styles.xml" {
				root = "w:styles"
			}
			content = `<?xml version="1.0" encoding="UTF-8"?><` + root + ` ` + wNS + `>` + content + `</` + root + `>`
		}
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// para returns a w:p with optional pPr XML and text runs.
func para(pPr string, runs ...string) string {
	var sb strings.Builder
	sb.WriteString("<w:p>")
	if pPr != "" {
		sb.WriteString("<w:pPr>" + pPr + "</w:pPr>")
	}
	for _, r := range runs {
		sb.WriteString(`<w:r><w:t xml:space="preserve">` + r + `</w:t></w:r>`)
	}
	sb.WriteString("</w:p>")
	return sb.String()
}

func numPr(numID, ilvl string) string {
	return `<w:numPr><w:ilvl w:val="` + ilvl + `"/><w:numId w:val="` + numID + `"/></w:numPr>`
}

// legalNumbering is an abstract list: "1.", "1.1", "(a)", "(i)".
const legalNumbering = `
<w:abstractNum w:abstractNumId="0">
  <w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl>
  <w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1.%2"/><w:suff w:val="space"/></w:lvl>
  <w:lvl w:ilvl="2"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="(%3)"/></w:lvl>
  <w:lvl w:ilvl="3"><w:start w:val="1"/><w:numFmt w:val="lowerRoman"/><w:lvlText w:val="(%4)"/><w:suff w:val="nothing"/></w:lvl>
</w:abstractNum>
<w:abstractNum w:abstractNumId="1">
  <w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="upperLetter"/><w:lvlText w:val="Article %1"/></w:lvl>
</w:abstractNum>
<w:abstractNum w:abstractNumId="2">
  <w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/><w:lvlText w:val="` + "\uF0B7" + `"/></w:lvl>
</w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>
<w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>
<w:num w:numId="3"><w:abstractNumId w:val="0"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="5"/></w:lvlOverride></w:num>
<w:num w:numId="4"><w:abstractNumId w:val="2"/></w:num>
`

func TestParseDOCX(t *testing.T) {
	tests := []struct {
		name      string
		parts     map[string]string
		want      string
		wantLabel []string // labels of list_item/heading blocks, in order
	}{
		{
			name:  "plain paragraphs, tab, break, empty paragraph dropped",
			parts: map[string]string{"word/document.xml": para("", "Hello ", "world") + para("") + `<w:p><w:r><w:t>a</w:t><w:tab/><w:t>b</w:t><w:br/><w:t>c</w:t></w:r></w:p>`},
			want:  "Hello world\n\na\tb\nc",
		},
		{
			name: "multi-level numbering",
			parts: map[string]string{
				"word/numbering.xml": legalNumbering,
				"word/document.xml": para(numPr("1", "0"), "Definitions") +
					para(numPr("1", "1"), "Terms") +
					para(numPr("1", "2"), "alpha") +
					para(numPr("1", "3"), "one") +
					para(numPr("1", "3"), "two") +
					para(numPr("1", "2"), "beta") +
					para(numPr("1", "1"), "More") +
					para(numPr("1", "0"), "Payment") +
					para(numPr("1", "1"), "Fees"),
			},
			want:      "1.\tDefinitions\n\n1.1 Terms\n\n(a)\talpha\n\n(i)one\n\n(ii)two\n\n(b)\tbeta\n\n1.2 More\n\n2.\tPayment\n\n2.1 Fees",
			wantLabel: []string{"1.", "1.1", "(a)", "(i)", "(ii)", "(b)", "1.2", "2.", "2.1"},
		},
		{
			// Word and LibreOffice count per abstract numbering: the start
			// override restarts the shared count where its list is first
			// used, and the original list continues from there.
			name: "start override restarts the shared count; the original list continues it",
			parts: map[string]string{
				"word/numbering.xml": legalNumbering,
				"word/document.xml": para(numPr("1", "0"), "a") +
					para(numPr("3", "0"), "b") +
					para(numPr("3", "0"), "c") +
					para(numPr("1", "0"), "d") +
					para(numPr("2", "0"), "e") +
					para(numPr("4", "0"), "f"),
			},
			want:      "1.\ta\n\n5.\tb\n\n6.\tc\n\n7.\td\n\nArticle A\te\n\n•\tf",
			wantLabel: []string{"1.", "5.", "6.", "7.", "Article A", "•"},
		},
		{
			name: "style-based numbering with basedOn, and headings",
			parts: map[string]string{
				"word/numbering.xml": legalNumbering,
				"word/styles.xml": `
<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="ListBase"><w:name w:val="List Base"/><w:pPr><w:numPr><w:numId w:val="1"/></w:numPr></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="Clause2"><w:name w:val="Clause 2"/><w:basedOn w:val="ListBase"/><w:pPr><w:numPr><w:ilvl w:val="1"/></w:numPr></w:pPr></w:style>`,
				"word/document.xml": para(`<w:pStyle w:val="Heading1"/>`, "AGREEMENT") +
					para(`<w:pStyle w:val="ListBase"/>`, "Scope") +
					para(`<w:pStyle w:val="Clause2"/>`, "Detail") +
					para(`<w:pStyle w:val="Heading2"/>`, "Sub") +
					para(`<w:pStyle w:val="Clause2"/><w:numPr><w:numId w:val="0"/></w:numPr>`, "Unnumbered"),
			},
			want:      "AGREEMENT\n\n1.\tScope\n\n1.1 Detail\n\nSub\n\nUnnumbered",
			wantLabel: []string{"1.", "1.1"},
		},
		{
			name: "tracked changes",
			parts: map[string]string{"word/document.xml": `<w:p>
<w:r><w:t xml:space="preserve">The term is </w:t></w:r>
<w:del w:id="1" w:author="x"><w:r><w:delText>two</w:delText></w:r></w:del>
<w:ins w:id="2" w:author="x"><w:r><w:t>three</w:t></w:r></w:ins>
<w:r><w:t xml:space="preserve"> years</w:t></w:r>
<w:moveFrom w:id="3"><w:r><w:t>OLD</w:t></w:r></w:moveFrom>
<w:moveTo w:id="4"><w:r><w:t>.</w:t></w:r></w:moveTo>
<w:r><w:instrText> PAGE </w:instrText></w:r>
<w:r><w:rPr><w:vanish/></w:rPr><w:t>hidden</w:t></w:r>
</w:p>` +
				`<w:p><w:pPr><w:rPr><w:del w:id="5" w:author="x"/></w:rPr></w:pPr><w:r><w:t xml:space="preserve">Joined </w:t></w:r></w:p>` + para("", "text")},
			want: "The term is three years.\n\nJoined text",
		},
		{
			name: "tables: simple rows on lines, rich cells as paragraphs",
			parts: map[string]string{
				"word/numbering.xml": legalNumbering,
				"word/document.xml": para("", "Before") +
					`<w:tbl><w:tr><w:tc>` + para("", "Name") + `</w:tc><w:tc>` + para("", "Acme") + `</w:tc></w:tr>` +
					`<w:tr><w:tc>` + para("", "Date") + `</w:tc><w:tc>` + para("", "2024") + `</w:tc></w:tr></w:tbl>` +
					`<w:tbl><w:tr><w:tc>` + para(numPr("1", "0"), "English") + para(numPr("1", "0"), "Second") + `</w:tc><w:tc>` + para("", "Deutsch") + `</w:tc></w:tr></w:tbl>` +
					para("", "After"),
			},
			want:      "Before\n\nName\tAcme\nDate\t2024\n\n1.\tEnglish\n\n2.\tSecond\n\nDeutsch\n\nAfter",
			wantLabel: []string{"1.", "2."},
		},
		{
			name:  "alternate content: fallback dropped",
			parts: map[string]string{"word/document.xml": `<w:p><w:r><w:t>Outer</w:t></w:r><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><w:txbxContent>` + para("", "box") + `</w:txbxContent></w:drawing></mc:Choice><mc:Fallback><w:pict><w:txbxContent>` + para("", "box") + `</w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>`},
			want:  "box\n\nOuter",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := parseDOCX(buildDOCX(t, tt.parts), nil)
			if err != nil {
				t.Fatal(err)
			}
			checkDoc(t, doc)
			if doc.Text != tt.want {
				t.Errorf("text =\n%q\nwant\n%q", doc.Text, tt.want)
			}
			var labels []string
			for _, b := range doc.Blocks {
				if b.Label != "" {
					labels = append(labels, b.Label)
				}
			}
			if strings.Join(labels, "|") != strings.Join(tt.wantLabel, "|") {
				t.Errorf("labels = %q, want %q", labels, tt.wantLabel)
			}
		})
	}
}

func TestParseDOCXBlocks(t *testing.T) {
	doc, err := parseDOCX(buildDOCX(t, map[string]string{
		"word/numbering.xml": legalNumbering,
		"word/styles.xml":    `<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style>`,
		"word/document.xml":  para(`<w:pStyle w:val="Heading2"/>`, "Payment") + para(numPr("1", "2"), "café"),
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind  document.BlockKind
		text  string
		level int
		label string
	}{
		{document.BlockHeading, "Payment", 1, ""},
		{document.BlockListItem, "(a)\tcafé", 2, "(a)"},
	}
	if len(doc.Blocks) != len(want) {
		t.Fatalf("blocks = %+v", doc.Blocks)
	}
	for i, w := range want {
		b := doc.Blocks[i]
		if b.Kind != w.kind || doc.Slice(b.Span) != w.text || b.Level != w.level || b.Label != w.label {
			t.Errorf("block %d = %+v %q, want %+v", i, b, doc.Slice(b.Span), w)
		}
	}
}

func TestParseDOCXErrors(t *testing.T) {
	// A highly compressible part larger than the per-part limit.
	var bomb bytes.Buffer
	zw := zip.NewWriter(&bomb)
	w, _ := zw.Create("word/document.xml")
	chunk := bytes.Repeat([]byte{' '}, 1<<20)
	for i := 0; i < docxMaxPart>>20+1; i++ {
		w.Write(chunk)
	}
	zw.Close()

	ole := append(append([]byte{}, oleMagic...), make([]byte, 512)...)
	encrypted := append(append([]byte{}, ole...), utf16le("EncryptedPackage")...)

	tests := []struct {
		name    string
		data    []byte
		want    error
		message string
	}{
		{"zip bomb", bomb.Bytes(), ErrTooLarge, "docx part word/document.xml expands beyond 64 MiB (zip bomb?)"},
		{"malformed xml", buildDOCX(t, map[string]string{"word/document.xml": "<w:p><w:r><w:t>unclosed</w:r></w:p>"}), ErrCorrupt, "word/document.xml"},
		{"malformed numbering", buildDOCX(t, map[string]string{"word/document.xml": para("", "x"), "word/numbering.xml": "<w:num"}), ErrCorrupt, "word/numbering.xml"},
		{"not a zip", []byte("this is plain text, not a docx"), ErrCorrupt, "zip"},
		{"zip without document", buildDOCX(t, map[string]string{"other.txt": "x"}), ErrCorrupt, "word/document.xml"},
		{"legacy doc", ole, ErrUnsupported, "legacy .doc (Word 97-2003) is not supported; save as .docx"},
		{"encrypted", encrypted, ErrEncrypted, "password"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseDOCX(tt.data, nil)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.message) {
				t.Errorf("err = %q, want it to mention %q", err, tt.message)
			}
		})
	}
}

func TestFormatDocxNumber(t *testing.T) {
	tests := []struct {
		n    int
		f    string
		want string
	}{
		{3, "decimal", "3"}, {3, "decimalZero", "03"}, {12, "decimalZero", "12"},
		{1, "lowerLetter", "a"}, {27, "lowerLetter", "aa"}, {28, "upperLetter", "BB"},
		{4, "lowerRoman", "iv"}, {1999, "upperRoman", "MCMXCIX"}, {2, "ordinal", "2nd"},
		{12, "ordinal", "12th"}, {5, "bullet", ""}, {0, "lowerLetter", "0"},
	}
	for _, tt := range tests {
		if got := formatDocxNumber(tt.n, tt.f); got != tt.want {
			t.Errorf("formatDocxNumber(%d, %q) = %q, want %q", tt.n, tt.f, got, tt.want)
		}
	}
}

// FuzzParseDOCX fuzzes both the raw bytes (zip layer) and, wrapped in a
// valid zip, the XML of the body, numbering and styles parts.
func FuzzParseDOCX(f *testing.F) {
	styles := `<w:style w:type="paragraph" w:styleId="L"><w:basedOn w:val="L"/><w:pPr><w:numPr><w:numId w:val="1"/></w:numPr><w:outlineLvl w:val="1"/></w:pPr></w:style>`
	seeds := []struct{ body, num, styles string }{
		{para("", "x"), "", ""},
		{para(numPr("1", "3"), "deep") + para(numPr("3", "9"), "bad level") + para(numPr("4", "0"), "•"), legalNumbering, ""},
		{`<w:tbl><w:tr><w:tc><w:tbl><w:tr><w:tc>` + para("", "n") + `</w:tc></w:tr></w:tbl></w:tc></w:tr></w:tbl>`, "", ""},
		{para(`<w:pStyle w:val="L"/>`, "styled") + `<w:p><w:pPr><w:rPr><w:del/></w:rPr></w:pPr><w:ins><w:r><w:t>i</w:t><w:br/></w:r></w:ins></w:p>`, legalNumbering, styles},
		{`<w:p><w:r><mc:AlternateContent><mc:Choice><w:txbxContent>` + para("", "b") + `</w:txbxContent></mc:Choice></mc:AlternateContent></w:r></w:p>`, "", ""},
	}
	for _, s := range seeds {
		f.Add(buildDOCX(f, map[string]string{"word/document.xml": s.body}), s.body, s.num, s.styles)
	}
	f.Add([]byte("PK\x03\x04garbage"), "", "", "")
	for _, b := range bombtest.Seeds("docx") {
		f.Add(b, "", "", "")
	}
	f.Fuzz(func(t *testing.T, data []byte, body, num, styles string) {
		if doc, err := parseDOCX(data, nil); err == nil {
			checkDoc(t, doc)
		}
		parts := map[string]string{"word/document.xml": body}
		if num != "" {
			parts["word/numbering.xml"] = num
		}
		if styles != "" {
			parts["word/styles.xml"] = styles
		}
		if doc, err := parseDOCX(buildDOCX(t, parts), nil); err == nil {
			checkDoc(t, doc)
		}
	})
}
