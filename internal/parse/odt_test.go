package parse

import (
	"archive/zip"
	"bytes"
	"errors"
	"testing"
)

// odtOf builds an .odt from content.xml's body (inside office:text) and
// optional styles.xml styles (inside office:styles).
func odtOf(t testing.TB, body, styles string, extra map[string]string) []byte {
	const ns = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"`
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	parts := map[string]string{
		"mimetype":    "application/vnd.oasis.opendocument.text",
		"content.xml": `<?xml version="1.0"?><office:document-content ` + ns + `><office:body><office:text>` + body + `</office:text></office:body></office:document-content>`,
		"styles.xml":  `<?xml version="1.0"?><office:document-styles ` + ns + `><office:styles>` + styles + `</office:styles></office:document-styles>`,
	}
	for k, v := range extra {
		parts[k] = v
	}
	for name, content := range parts {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(content))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestODT(t *testing.T) {
	list := `<text:list-style style:name="L"><text:list-level-style-number text:level="1" style:num-suffix="." style:num-format="1"/><text:list-level-style-number text:level="2" style:num-suffix="." style:num-format="1" text:display-levels="2"/><text:list-level-style-bullet text:level="3" text:bullet-char="-"/></text:list-style>`
	for _, tc := range []struct {
		name, body, styles, want string
	}{
		{"white space collapses", `<text:p>  a   b<text:s text:c="2"/>c<text:tab/>d<text:line-break/>e </text:p>`, "", "a b  c\td\ne"},
		{"nested list numbering", `<text:list text:style-name="L"><text:list-item><text:p>one</text:p><text:list><text:list-item><text:p>sub</text:p><text:list><text:list-item><text:p>dash</text:p></text:list-item></text:list></text:list-item><text:list-item><text:p>sub2</text:p></text:list-item></text:list></text:list-item><text:list-item><text:p>two</text:p></text:list-item></text:list>`, list, "1.\tone\n\n1.1.\tsub\n\n-\tdash\n\n1.2.\tsub2\n\n2.\ttwo"},
		{"a new list restarts, continue-numbering does not", `<text:list text:style-name="L"><text:list-item><text:p>a</text:p></text:list-item></text:list><text:p>x</text:p><text:list text:style-name="L" text:continue-numbering="true"><text:list-item><text:p>b</text:p></text:list-item></text:list><text:list text:style-name="L"><text:list-item><text:p>c</text:p></text:list-item></text:list>`, list, "1.\ta\n\nx\n\n2.\tb\n\n1.\tc"},
		{"a heading restarts the outline count where it says", `<text:h text:outline-level="1">One</text:h><text:h text:outline-level="2">Sub</text:h><text:h text:outline-level="1" text:restart-numbering="true" text:start-value="5">Five</text:h><text:h text:outline-level="2">Sub</text:h><text:h text:outline-level="1">Six</text:h>`, `<text:outline-style style:name="Outline"><text:outline-level-style text:level="1" style:num-format="1" style:num-suffix="."/><text:outline-level-style text:level="2" style:num-format="1" text:display-levels="2"/></text:outline-style>`, "1.\tOne\n\n1.1\tSub\n\n5.\tFive\n\n5.1\tSub\n\n6.\tSix"},
		{"saved number wins", `<text:h text:outline-level="1"><text:number>7.</text:number>Seventh</text:h>`, "", "7.\tSeventh"},
		{"tracked deletions, notes, frames dropped", `<text:tracked-changes><text:changed-region><text:deletion><text:p>gone</text:p></text:deletion></text:changed-region></text:tracked-changes><text:p>kept<text:note><text:note-body><text:p>footnote</text:p></text:note-body></text:note> text<draw:frame><draw:text-box><text:p>box</text:p></draw:text-box></draw:frame></text:p>`, "", "kept text"},
		{"table rows", `<table:table><table:table-row><table:table-cell><text:p>A</text:p></table:table-cell><table:table-cell><text:p>B</text:p></table:table-cell></table:table-row><table:table-row><table:table-cell><text:p>C</text:p></table:table-cell><table:table-cell/></table:table-row></table:table><text:p>after</text:p>`, "", "A\tB\nC\n\nafter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := parseODT(odtOf(t, tc.body, tc.styles, nil), nil)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Text != tc.want {
				t.Errorf("got %q, want %q", doc.Text, tc.want)
			}
			checkBlocks(t, doc)
		})
	}
	enc := odtOf(t, `<text:p>x</text:p>`, "", map[string]string{"META-INF/manifest.xml": `<manifest><file-entry><encryption-data/></file-entry></manifest>`})
	if _, err := parseODT(enc, nil); !errors.Is(err, ErrEncrypted) {
		t.Errorf("encrypted: %v", err)
	}
	sheet := odtOf(t, `<text:p>x</text:p>`, "", map[string]string{"mimetype": "application/vnd.oasis.opendocument.spreadsheet"})
	if _, err := parseODT(sheet, nil); !errors.Is(err, ErrUnsupported) {
		t.Errorf("spreadsheet: %v", err)
	}
	if _, err := parseODT([]byte("PK\x03\x04 nonsense"), nil); !errors.Is(err, ErrCorrupt) {
		t.Errorf("corrupt: %v", err)
	}
}

func FuzzODTContent(f *testing.F) {
	f.Add(`<text:h text:outline-level="2">H</text:h><text:list text:style-name="L"><text:list-item><text:p>a<text:s text:c="3"/>b</text:p></text:list-item></text:list><table:table><table:table-row><table:table-cell><text:p>c</text:p></table:table-cell></table:table-row></table:table>`)
	f.Fuzz(func(t *testing.T, body string) {
		doc, err := parseODT(odtOf(t, body, `<text:list-style style:name="L"><text:list-level-style-number text:level="1" style:num-format="a" text:display-levels="3"/></text:list-style>`, nil), nil)
		if err != nil {
			return
		}
		checkBlocks(t, doc)
	})
}
