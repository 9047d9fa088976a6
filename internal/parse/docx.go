package parse

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/pakton/pakton/internal/document"
)

// Canonical text of a DOCX file is the body as Word displays it with all
// tracked changes accepted:
//
//   - One paragraph (w:p) per line, paragraphs separated by a blank line;
//     a line break inside a paragraph (w:br, w:cr) is a single "\n", so the
//     two never look alike. Empty paragraphs are left out.
//   - Numbering that Word generates (numbering.xml, direct or through the
//     paragraph style) is rebuilt and written before the paragraph text
//     with the level's suffix: a tab by default, as Word shows it, or a
//     space, or nothing. The paragraph is reported as a list_item block
//     (or a heading block, for heading styles) carrying the label.
//   - Inserted (w:ins) and moved-to text is kept; deleted (w:del) and
//     moved-from text is dropped, as is hidden text (w:vanish) and field
//     instructions. A paragraph whose mark was deleted joins the next one.
//   - A table row whose cells hold at most one paragraph each becomes one
//     line, cells separated by tabs, rows on consecutive lines. Rows with
//     richer cells (several paragraphs, nested tables) are written cell
//     by cell as ordinary paragraphs so their numbering survives.
//   - Headers, footers, footnotes, comments and drawings are not included.

// Limits on what a DOCX may expand to. A zip can declare sizes it does not
// keep, so reads are also bounded.
const (
	docxMaxPart  = 64 << 20
	docxMaxTotal = 256 << 20
)

const (
	nsW       = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	nsWStrict = "http://purl.oclc.org/ooxml/wordprocessingml/main"
	nsMC      = "http://schemas.openxmlformats.org/markup-compatibility/2006"
	nsRel     = "http://schemas.openxmlformats.org/package/2006/relationships"
)

var oleMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

func parseDOCX(data []byte, lim *textBudget) (*document.Document, error) {
	if bytes.HasPrefix(data, oleMagic) {
		if bytes.Contains(data, utf16le("EncryptedPackage")) {
			return nil, fmt.Errorf("%w: the .docx is password-protected; remove the password in Word and save again", ErrEncrypted)
		}
		return nil, fmt.Errorf("%w: legacy .doc (Word 97-2003) is not supported; save as .docx", ErrUnsupported)
	}
	if bytes.HasPrefix(data, []byte(`{\rtf`)) {
		return nil, fmt.Errorf("%w: the file is RTF, not DOCX; save as .docx", ErrUnsupported)
	}
	pk, err := openPackage(data, "docx")
	if err != nil {
		return nil, err
	}
	main := pk.mainPart()
	body, err := pk.read(main)
	if err != nil {
		return nil, err
	}
	if body == nil {
		return nil, fmt.Errorf("%w: no %s in the archive; not a Word document", ErrCorrupt, main)
	}
	rels := pk.partRels(main)
	styles, err := readRelated(pk, rels, main, "/styles", "styles.xml", parseDocxStyles)
	if err != nil {
		return nil, err
	}
	if styles == nil {
		styles = &docxStyles{byID: map[string]*docxStyle{}}
	}
	num, err := readRelated(pk, rels, main, "/numbering", "numbering.xml", parseDocxNumbering)
	if err != nil {
		return nil, err
	}
	if num == nil {
		num = &docxNumbering{abstract: map[string]*docxAbstract{}, nums: map[string]*docxNum{}}
	}
	bw := &docxBody{styles: styles, num: num, counters: map[string]*[9]int{}, lim: lim}
	if err := bw.parse(body); err != nil {
		if lim.Err() != nil {
			return nil, lim.Err()
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, main, err)
	}
	text, blocks := bw.render()
	return &document.Document{Format: "docx", Text: text, Blocks: blocks}, nil
}

func utf16le(s string) []byte {
	b := make([]byte, 0, 2*len(s))
	for i := 0; i < len(s); i++ {
		b = append(b, s[i], 0)
	}
	return b
}

// docxPackage reads parts of the zip within the size limits.
type docxPackage struct {
	files map[string]*zip.File
	total int64
	kind  string // "docx", "odt": the format named in errors
}

// openPackage opens data as the zip archive of an OOXML or ODF package;
// kind ("docx", "odt") names the format in errors.
func openPackage(data []byte, kind string) (*docxPackage, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%w: not a valid .%s (zip) archive: %v", ErrCorrupt, kind, err)
	}
	pk := &docxPackage{files: map[string]*zip.File{}, kind: kind}
	for _, f := range zr.File {
		pk.files[strings.TrimPrefix(f.Name, "/")] = f
	}
	return pk, nil
}

// readRelated parses, with parse, the part the main part's relationship of
// type rel names (name beside the main part when no relationship does); nil
// when the package has no such part. A part parse rejects is ErrCorrupt.
func readRelated[T any](pk *docxPackage, rels docxRels, main, rel, name string, parse func([]byte) (*T, error)) (*T, error) {
	p := rels.target(rel, path.Join(path.Dir(main), name))
	if p == "" {
		return nil, nil
	}
	b, err := pk.read(p)
	if err != nil || b == nil {
		return nil, err
	}
	v, err := parse(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, p, err)
	}
	return v, nil
}

// read returns the part's bytes, or nil, nil when the part does not exist.
func (pk *docxPackage) read(name string) ([]byte, error) {
	f := pk.files[name]
	if f == nil {
		return nil, nil
	}
	limit := int64(docxMaxPart)
	if rest := docxMaxTotal - pk.total; rest < limit {
		limit = rest
	}
	tooLarge := func() error {
		if limit < docxMaxPart {
			return fmt.Errorf("%w: %s parts expand beyond %d MiB in total (zip bomb?)", ErrTooLarge, pk.kind, docxMaxTotal>>20)
		}
		return fmt.Errorf("%w: %s part %s expands beyond %d MiB (zip bomb?)", ErrTooLarge, pk.kind, name, docxMaxPart>>20)
	}
	if f.UncompressedSize64 > uint64(limit) {
		return nil, tooLarge()
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: %s part %s: %v", ErrCorrupt, pk.kind, name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, limit+1))
	pk.total += int64(len(b))
	if int64(len(b)) > limit {
		return nil, tooLarge()
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s part %s: %v", ErrCorrupt, pk.kind, name, err)
	}
	return b, nil
}

type docxRels []struct {
	Type   string `xml:"Type,attr"`
	Target string `xml:"Target,attr"`
	Mode   string `xml:"TargetMode,attr"`
}

// target returns the package path of the first relationship whose type
// ends in suffix, or fallback when there is none.
func (r docxRels) target(suffix, fallback string) string {
	for _, rel := range r {
		if strings.HasSuffix(rel.Type, suffix) && rel.Mode != "External" {
			return rel.Target
		}
	}
	return fallback
}

// partRels reads the relationships of part, resolving targets to package
// paths. Missing or unreadable relationships yield nil: the conventional
// part names are then used.
func (pk *docxPackage) partRels(part string) docxRels {
	dir, file := path.Split(part)
	b, err := pk.read(path.Join(dir, "_rels", file+".rels"))
	if err != nil || b == nil {
		return nil
	}
	var x struct {
		Rels docxRels `xml:"Relationship"`
	}
	if xml.Unmarshal(b, &x) != nil {
		return nil
	}
	for i, rel := range x.Rels {
		t := rel.Target
		if strings.HasPrefix(t, "/") {
			t = strings.TrimPrefix(t, "/")
		} else {
			t = path.Join(dir, t)
		}
		x.Rels[i].Target = path.Clean(t)
	}
	return x.Rels
}

func (pk *docxPackage) mainPart() string {
	const def = "word/document.xml"
	if pk.files[def] != nil {
		return def
	}
	for _, rel := range pk.partRels("") {
		if strings.HasSuffix(rel.Type, "/officeDocument") && pk.files[rel.Target] != nil {
			return rel.Target
		}
	}
	return def
}

// isW reports whether n is the WordprocessingML element local.
func isW(n xml.Name, local string) bool {
	return n.Local == local && (n.Space == nsW || n.Space == nsWStrict)
}

func wAttr(se xml.StartElement, local string) (string, bool) {
	for _, a := range se.Attr {
		if a.Name.Local == local && (a.Name.Space == nsW || a.Name.Space == nsWStrict || a.Name.Space == "") {
			return a.Value, true
		}
	}
	return "", false
}

func wVal(se xml.StartElement) string {
	v, _ := wAttr(se, "val")
	return v
}

// onOff reads a WordprocessingML toggle (absent val means on).
func onOff(se xml.StartElement) bool {
	v, ok := wAttr(se, "val")
	if !ok {
		return true
	}
	switch v {
	case "0", "false", "off":
		return false
	}
	return true
}

// walkW reads a WordprocessingML part token by token, keeping the stack of
// open elements: start is called for each element of the w: namespace
// (transitional or strict) with the local name of its parent, whatever the
// parent's namespace; end for each end element of the w: namespace.
func walkW(b []byte, start func(t xml.StartElement, parent string), end func(t xml.EndElement)) error {
	var stack []string
	return eachToken(b, func(tok xml.Token) {
		switch t := tok.(type) {
		case xml.StartElement:
			parent := ""
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			stack = append(stack, t.Name.Local)
			if t.Name.Space != nsW && t.Name.Space != nsWStrict {
				return
			}
			start(t, parent)
		case xml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			if t.Name.Space != nsW && t.Name.Space != nsWStrict {
				return
			}
			end(t)
		}
	})
}

// eachToken calls f with every token of an XML part (OOXML or ODF, read by
// newDocxDecoder) and returns the decoder's error, if any.
func eachToken(b []byte, f func(tok xml.Token)) error {
	return eachTokenUntil(b, func(tok xml.Token) error {
		f(tok)
		return nil
	})
}

// eachTokenUntil is eachToken for an f that can stop the reading: its
// first error is returned.
func eachTokenUntil(b []byte, f func(tok xml.Token) error) error {
	d := newDocxDecoder(b)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := f(tok); err != nil {
			return err
		}
	}
}

// newDocxDecoder returns a strict decoder over b. The parts are UTF-8 by
// the OOXML standard; other declared encodings are passed through as is.
func newDocxDecoder(b []byte) *xml.Decoder {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	return d
}
