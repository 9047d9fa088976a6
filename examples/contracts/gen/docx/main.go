// Command docx regenerates examples/contracts/supply-agreement.docx, a fictional
// supply agreement written for pakton's examples and tests.
//
// The document uses Word automatic numbering (numbering.xml with a three-level
// abstract numbering definition "%1." / "%1.%2" / "(%3)"), a numbered heading
// style linked to level 0 of that list in styles.xml, and one tracked insertion
// (w:ins) and one tracked deletion (w:del) in the body, so that the DOCX parser
// must compute clause numbers itself and decide how to treat revisions.
//
// Output is deterministic: fixed zip timestamps, fixed file order and no
// randomness. Run from the repository root:
//
//	go run ./examples/contracts/gen/docx
package main

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"time"
)

// Paragraph kinds.
const (
	kTitle     = iota // centred title, unnumbered
	kPlain            // unnumbered body paragraph
	kHeading          // article heading: numbered "1." through the ClauseHeading style
	kClause           // clause: direct numbering, level 1 ("1.1")
	kSub              // sub-clause: direct numbering, level 2 ("(a)")
	kDef              // definition paragraph, unnumbered, indented
	kAnnexHead        // annex heading, unnumbered
)

type para struct {
	kind int
	text string
}

func T(s string) para { return para{kTitle, s} }
func P(s string) para { return para{kPlain, s} }
func H(s string) para { return para{kHeading, s} }
func C(s string) para { return para{kClause, s} }
func S(s string) para { return para{kSub, s} }
func D(s string) para { return para{kDef, s} }
func A(s string) para { return para{kAnnexHead, s} }

// Tracked revisions are written inline in the text as [+inserted+] and [-deleted-].
const (
	revAuthor = "M. Brandt (Calloway Legal)"
	revDate   = "2025-02-18T10:30:00Z"
)

var fixedTime = time.Date(2025, time.February, 20, 9, 0, 0, 0, time.UTC)

func main() {
	out := flag.String("o", "examples/contracts/supply-agreement.docx", "output path")
	flag.Parse()
	data, err := build()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("wrote %s (%d bytes)\n", *out, len(data))
}

func build() ([]byte, error) {
	files := []struct{ name, body string }{
		{"[Content_Types].xml", contentTypes},
		{"_rels/.rels", rootRels},
		{"docProps/core.xml", coreProps},
		{"docProps/app.xml", appProps},
		{"word/document.xml", documentXML(agreement)},
		{"word/styles.xml", stylesXML},
		{"word/numbering.xml", numberingXML},
		{"word/settings.xml", settingsXML},
		{"word/_rels/document.xml.rels", documentRels},
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: fixedTime}
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write([]byte(f.body)); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func esc(s string) string {
	var b strings.Builder
	if err := xml.EscapeText(&b, []byte(s)); err != nil {
		panic(err)
	}
	return b.String()
}

func run(s string) string {
	return `<w:r><w:t xml:space="preserve">` + esc(s) + `</w:t></w:r>`
}

// runs converts text with [+ins+] / [-del-] markers into WordprocessingML runs.
func runs(text string, revID *int) string {
	var b strings.Builder
	for len(text) > 0 {
		i := strings.IndexAny(text, "[")
		if i < 0 || i+1 >= len(text) || (text[i+1] != '+' && text[i+1] != '-') {
			if i < 0 {
				b.WriteString(run(text))
				break
			}
			b.WriteString(run(text[:i+1]))
			text = text[i+1:]
			continue
		}
		if i > 0 {
			b.WriteString(run(text[:i]))
		}
		marker := text[i+1]
		end := strings.Index(text[i+2:], string(marker)+"]")
		if end < 0 {
			panic("unterminated revision marker in: " + text)
		}
		inner := text[i+2 : i+2+end]
		*revID++
		if marker == '+' {
			fmt.Fprintf(&b, `<w:ins w:id="%d" w:author="%s" w:date="%s">%s</w:ins>`, *revID, esc(revAuthor), revDate, run(inner))
		} else {
			fmt.Fprintf(&b, `<w:del w:id="%d" w:author="%s" w:date="%s"><w:r><w:delText xml:space="preserve">%s</w:delText></w:r></w:del>`, *revID, esc(revAuthor), revDate, esc(inner))
		}
		text = text[i+2+end+2:]
	}
	return b.String()
}

func documentXML(ps []para) string {
	var b strings.Builder
	b.WriteString(xml.Header)
	b.WriteString(`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body>`)
	revID := 0
	for _, p := range ps {
		var ppr string
		switch p.kind {
		case kTitle:
			ppr = `<w:pPr><w:pStyle w:val="Title"/></w:pPr>`
		case kPlain:
			ppr = ``
		case kHeading:
			ppr = `<w:pPr><w:pStyle w:val="ClauseHeading"/></w:pPr>`
		case kClause:
			ppr = `<w:pPr><w:pStyle w:val="ClauseText"/><w:numPr><w:ilvl w:val="1"/><w:numId w:val="1"/></w:numPr></w:pPr>`
		case kSub:
			ppr = `<w:pPr><w:pStyle w:val="ClauseText"/><w:numPr><w:ilvl w:val="2"/><w:numId w:val="1"/></w:numPr></w:pPr>`
		case kDef:
			ppr = `<w:pPr><w:pStyle w:val="Definition"/></w:pPr>`
		case kAnnexHead:
			ppr = `<w:pPr><w:pStyle w:val="AnnexHeading"/></w:pPr>`
		}
		b.WriteString(`<w:p>` + ppr + runs(p.text, &revID) + `</w:p>`)
	}
	b.WriteString(`<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr>`)
	b.WriteString(`</w:body></w:document>`)
	return b.String()
}

const contentTypes = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/><Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/><Override PartName="/word/settings.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/><Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/></Types>`

const rootRels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties" Target="docProps/app.xml"/></Relationships>`

const documentRels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/settings" Target="settings.xml"/></Relationships>`

const coreProps = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dc:title>Supply Agreement</dc:title><dc:creator>pakton examples</dc:creator><dc:description>Fictional agreement written for the pakton project.</dc:description><dcterms:created xsi:type="dcterms:W3CDTF">2025-02-20T09:00:00Z</dcterms:created><dcterms:modified xsi:type="dcterms:W3CDTF">2025-02-20T09:00:00Z</dcterms:modified></cp:coreProperties>`

const appProps = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>pakton examples generator</Application></Properties>`

const settingsXML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:settings xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:trackRevisions/><w:defaultTabStop w:val="720"/><w:compat><w:compatSetting w:name="compatibilityMode" w:uri="http://schemas.microsoft.com/office/word" w:val="15"/></w:compat></w:settings>`

// styles.xml: ClauseHeading carries numPr itself (style-based numbering), and
// level 0 of abstractNum 0 points back at it through w:pStyle.
const stylesXML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Cambria" w:hAnsi="Cambria" w:cs="Cambria"/><w:sz w:val="22"/><w:lang w:val="en-GB"/></w:rPr></w:rPrDefault><w:pPrDefault><w:pPr><w:spacing w:after="120" w:line="264" w:lineRule="auto"/><w:jc w:val="both"/></w:pPr></w:pPrDefault></w:docDefaults><w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style><w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/><w:pPr><w:spacing w:after="240"/><w:jc w:val="center"/></w:pPr><w:rPr><w:b/><w:caps/><w:sz w:val="32"/></w:rPr></w:style><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/><w:pPr><w:keepNext/><w:spacing w:before="240" w:after="120"/><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/><w:caps/></w:rPr></w:style><w:style w:type="paragraph" w:customStyle="1" w:styleId="ClauseHeading"><w:name w:val="Clause Heading"/><w:basedOn w:val="Heading1"/><w:next w:val="ClauseText"/><w:qFormat/><w:pPr><w:numPr><w:numId w:val="1"/></w:numPr><w:ind w:left="720" w:hanging="720"/><w:outlineLvl w:val="0"/></w:pPr></w:style><w:style w:type="paragraph" w:customStyle="1" w:styleId="ClauseText"><w:name w:val="Clause Text"/><w:basedOn w:val="Normal"/><w:qFormat/></w:style><w:style w:type="paragraph" w:customStyle="1" w:styleId="Definition"><w:name w:val="Definition"/><w:basedOn w:val="Normal"/><w:pPr><w:ind w:left="1440"/></w:pPr></w:style><w:style w:type="paragraph" w:customStyle="1" w:styleId="AnnexHeading"><w:name w:val="Annex Heading"/><w:basedOn w:val="Heading1"/><w:pPr><w:pageBreakBefore/><w:jc w:val="center"/></w:pPr></w:style></w:styles>`

const numberingXML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:numbering xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:abstractNum w:abstractNumId="0"><w:multiLevelType w:val="multilevel"/><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:pStyle w:val="ClauseHeading"/><w:lvlText w:val="%1."/><w:lvlJc w:val="left"/><w:pPr><w:ind w:left="720" w:hanging="720"/></w:pPr></w:lvl><w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1.%2"/><w:lvlJc w:val="left"/><w:pPr><w:ind w:left="720" w:hanging="720"/></w:pPr></w:lvl><w:lvl w:ilvl="2"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="(%3)"/><w:lvlJc w:val="left"/><w:pPr><w:ind w:left="1440" w:hanging="720"/></w:pPr></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>`
