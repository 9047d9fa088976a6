package compare

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// edited is the form with the edits a negotiation makes: a clause added
// without a number, a paragraph deleted, "not" inserted, "may" made
// "shall", a period changed, the sections after a new one renumbered.
func edited() string {
	c := form
	c = strings.Replace(c, "\n\nIN WITNESS WHEREOF", "\n\n"+nonSolicit+"\n\nIN WITNESS WHEREOF", 1)
	c = strings.Replace(c, "Supplier may suspend the services if any invoice remains unpaid for sixty (60) days after written notice.\n\n", "", 1)
	c = strings.Replace(c, "Supplier shall provide", "Supplier shall not provide", 1)
	c = strings.Replace(c, "within thirty (30) days", "within forty-five (45) days", 1)
	c = strings.Replace(c, "Each party shall keep", "Each party may keep", 1)
	for n := 5; n >= 4; n-- {
		c = strings.Replace(c, "\n\n"+strconv.Itoa(n)+". ", "\n\n"+strconv.Itoa(n+1)+". ", 1)
	}
	return strings.Replace(c, "\n\n5. Term", "\n\n4. Audit. Customer may audit Supplier's records once a year on thirty days' notice.\n\n5. Term", 1)
}

func redline(t *testing.T, template, contract string) []byte {
	t.Helper()
	var buf bytes.Buffer
	err := Redline(&buf, side(contract), side(template), RedlineOptions{Author: "Firm Reviewer", Date: time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC), Title: "Contract against Form"})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func parts(t *testing.T, docx []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(docx), int64(len(docx)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name], _ = io.ReadAll(rc)
		rc.Close()
	}
	return out
}

// words are a text's tokens as compare reads them: what accept-all and
// reject-all must give back.
func words(s string) []string {
	_, toks := tokenize(s)
	return toks
}

// TestRedlineTrackedChanges: the redline's text with every change accepted
// is the contract's, with every change rejected the template's; every
// revision has an id, an author and a date; the parts are well-formed and
// every element comes where the WordprocessingML schema puts it.
func TestRedlineTrackedChanges(t *testing.T) {
	for _, c := range []struct{ name, template, contract string }{
		{"edits", form, edited()},
		{"same", form, form},
		{"empty contract", form, ""},
		{"empty template", "", form},
		{"reflowed", form, strings.ReplaceAll(form, "\n\n", "\n")},
		{"control characters", form, strings.Replace(form, "Services.", "Services\x01 & <more> \"quoted\".", 1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := parts(t, redline(t, c.template, c.contract))
			checkPackage(t, p)
			accepted, rejected, ins, del := readRevisions(t, p["word/document.xml"])
			if !slices.Equal(words(accepted), words(strings.ReplaceAll(c.contract, "\x01", ""))) {
				t.Errorf("accept all:\n%s\nwant the contract:\n%s", accepted, c.contract)
			}
			if !slices.Equal(words(rejected), words(c.template)) {
				t.Errorf("reject all:\n%s\nwant the template:\n%s", rejected, c.template)
			}
			if c.name == "same" || c.name == "reflowed" {
				if ins+del != 0 {
					t.Errorf("%d insertions and %d deletions between texts with the same words", ins, del)
				}
			} else if c.name != "control characters" && (ins == 0 && c.contract != "" || del == 0 && c.template != "") || ins+del == 0 {
				t.Errorf("%d insertions, %d deletions", ins, del)
			}
		})
	}
}

// readRevisions reads document.xml as Word applies tracked changes: the
// text with all accepted and with all rejected, and the number of
// insertions and deletions. It fails the test on an element out of place.
func readRevisions(t *testing.T, doc []byte) (accepted, rejected string, ins, del int) {
	t.Helper()
	var acc, rej strings.Builder
	d := xml.NewDecoder(bytes.NewReader(doc))
	var stack []string
	ids := map[string]bool{}
	mark := "" // the paragraph mark's revision: "", "ins", "del"
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("document.xml: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			parent := ""
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			name := el.Name.Local
			allowed := map[string][]string{
				"body": {"document"}, "p": {"body"}, "pPr": {"p"}, "rPr": {"pPr"}, "r": {"p", "ins", "del"},
				"t": {"r"}, "delText": {"r"}, "br": {"r"}, "ins": {"p", "rPr"}, "del": {"p", "rPr"}, "sectPr": {"body"},
				"pgSz": {"sectPr"}, "pgMar": {"sectPr"}, "document": {""},
			}
			if !slices.Contains(allowed[name], parent) {
				t.Fatalf("<w:%s> inside <w:%s>", name, parent)
			}
			switch {
			case name == "t" && slices.Contains(stack, "del"), name == "delText" && !slices.Contains(stack, "del"):
				t.Fatalf("<w:%s> in %v", name, stack)
			case name == "ins" || name == "del":
				attr := map[string]string{}
				for _, a := range el.Attr {
					attr[a.Name.Local] = a.Value
				}
				if attr["id"] == "" || ids[attr["id"]] || attr["author"] != "Firm Reviewer" || attr["date"] != "2026-03-04T10:00:00Z" {
					t.Fatalf("revision %v (ids so far %d)", el.Attr, len(ids))
				}
				ids[attr["id"]] = true
				if parent == "rPr" {
					mark = name
				} else if name == "ins" {
					ins++
				} else {
					del++
				}
			case name == "p":
				mark = ""
			case name == "br":
				if !slices.Contains(stack, "del") {
					acc.WriteString("\n")
				}
				if !slices.Contains(stack, "ins") {
					rej.WriteString("\n")
				}
			case name == "pPr" && len(acc.String()) >= 0:
				// pPr must be the paragraph's first child: checked by the
				// writer's order (rPr holds only the mark's revision).
			}
			stack = append(stack, name)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
			if el.Name.Local == "p" {
				// A deleted mark joins the paragraph to the next when
				// accepted; an inserted one when rejected.
				if mark != "del" {
					acc.WriteString("\n\n")
				}
				if mark != "ins" {
					rej.WriteString("\n\n")
				}
			}
		case xml.CharData:
			if len(stack) == 0 {
				continue
			}
			switch stack[len(stack)-1] {
			case "t":
				acc.Write(el)
				if !slices.Contains(stack, "ins") {
					rej.Write(el)
				}
			case "delText":
				rej.Write(el)
			}
		}
	}
	return acc.String(), rej.String(), ins, del
}

// checkPackage: every part is well-formed XML, has a content type, and the
// relationships point at parts that exist; the body ends with sectPr and
// settings turn change tracking on.
func checkPackage(t *testing.T, p map[string][]byte) {
	t.Helper()
	for name, body := range p {
		d := xml.NewDecoder(bytes.NewReader(body))
		for {
			if _, err := d.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if name == "[Content_Types].xml" || strings.HasSuffix(name, ".rels") {
			continue
		}
		if !bytes.Contains(p["[Content_Types].xml"], []byte(`PartName="/`+name+`"`)) {
			t.Errorf("%s has no content type", name)
		}
	}
	for _, rels := range []string{"_rels/.rels", "word/_rels/document.xml.rels"} {
		var r struct {
			Rel []struct {
				Target string `xml:",attr"`
			} `xml:"Relationship"`
		}
		if err := xml.Unmarshal(p[rels], &r); err != nil {
			t.Fatal(err)
		}
		base := strings.TrimSuffix(strings.TrimSuffix(rels, "_rels/document.xml.rels"), "_rels/.rels")
		for _, x := range r.Rel {
			if p[base+x.Target] == nil {
				t.Errorf("%s points at %s, which is absent", rels, x.Target)
			}
		}
	}
	doc := string(p["word/document.xml"])
	if !strings.HasSuffix(doc, "</w:sectPr></w:body></w:document>") {
		t.Errorf("the body does not end with its section properties")
	}
	if !strings.Contains(string(p["word/settings.xml"]), "<w:trackRevisions/>") {
		t.Errorf("settings do not track revisions")
	}
	if strings.Contains(doc, "<w:p><w:r>") && strings.Contains(doc, "<w:r><w:pPr>") {
		t.Errorf("paragraph properties after a run")
	}
}

// TestRedlineInLibreOffice opens redlines with LibreOffice (PAKTON_SLOW=1,
// when soffice is installed), converts them to flat ODF and checks that it
// reads the insertions and deletions as tracked changes: its text with all
// changes accepted is the contract's, with all rejected the template's. The
// texts are the form with a negotiation's edits and, when ../shared/data
// is present, CUAD contracts with a clause inserted, a paragraph deleted,
// "not" inserted and "may" made "shall".
func TestRedlineInLibreOffice(t *testing.T) {
	if os.Getenv("PAKTON_SLOW") == "" {
		t.Skip("set PAKTON_SLOW=1")
	}
	soffice, err := exec.LookPath("soffice")
	if err != nil {
		t.Skip("LibreOffice not installed (apt-get install libreoffice-writer-nogui)")
	}
	type pair struct{ name, template, contract string }
	pairs := []pair{{"form", form, edited()}}
	for _, c := range cuadEdits(t, 2) {
		pairs = append(pairs, pair{c[0], c[1], c[2]})
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	// One LibreOffice run converts every redline (it takes seconds to start).
	var ins []string
	for i, p := range pairs {
		in := filepath.Join(dir, "redline"+strconv.Itoa(i)+".docx")
		if err := os.WriteFile(in, redline(t, p.template, p.contract), 0o644); err != nil {
			t.Fatal(err)
		}
		ins = append(ins, in)
	}
	args := append([]string{"--headless", "-env:UserInstallation=file://" + filepath.Join(dir, "profile"), "--convert-to", "fodt", "--outdir", dir}, ins...)
	out, err := exec.CommandContext(ctx, soffice, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("LibreOffice: %v\n%s", err, out)
	}
	for i, p := range pairs {
		fodt, err := os.ReadFile(strings.TrimSuffix(ins[i], ".docx") + ".fodt")
		if err != nil {
			t.Fatalf("%s: LibreOffice cannot open the redline: %v\n%s", p.name, err, out)
		}
		accepted, rejected, ins, del := readODFChanges(t, fodt)
		if ins == 0 || del == 0 {
			t.Errorf("%s: LibreOffice reads %d insertions and %d deletions", p.name, ins, del)
		}
		if !slices.Equal(words(accepted), words(p.contract)) {
			t.Errorf("%s: LibreOffice, all accepted, differs from the contract:\n%s", p.name, firstDifference(words(accepted), words(p.contract)))
		}
		if !slices.Equal(words(rejected), words(p.template)) {
			t.Errorf("%s: LibreOffice, all rejected, differs from the template:\n%s", p.name, firstDifference(words(rejected), words(p.template)))
		}
		t.Logf("%s: LibreOffice reads %d tracked insertions and %d deletions", p.name, ins, del)
	}
}

func firstDifference(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			lo := max(0, i-8)
			return "got  … " + strings.Join(got[lo:min(len(got), i+8)], " ") + "\nwant … " + strings.Join(want[lo:min(len(want), i+8)], " ")
		}
	}
	return "lengths " + strconv.Itoa(len(got)) + " and " + strconv.Itoa(len(want))
}

// readODFChanges applies a flat ODF text document's tracked changes: the
// body holds the text with insertions and deletions marked as ranges
// (text:change-start … text:change-end, their kind in
// text:tracked-changes), or deletions as points (text:change) whose text
// is in text:tracked-changes.
func readODFChanges(t *testing.T, fodt []byte) (accepted, rejected string, ins, del int) {
	t.Helper()
	type region struct {
		kind string
		text strings.Builder
	}
	regions := map[string]*region{}
	var acc, rej strings.Builder
	d := xml.NewDecoder(bytes.NewReader(fodt))
	var cur *region // the tracked-changes region being read
	inTracked, inBody := false, false
	openIns, openDel := map[string]bool{}, map[string]bool{} // ranges open in the body
	write := func(s string, insideDeletion bool) {
		switch {
		case inTracked && cur != nil && insideDeletion:
			cur.text.WriteString(s)
		case inBody && !inTracked:
			if len(openDel) == 0 || s == "\n\n" {
				acc.WriteString(s)
			}
			if len(openIns) == 0 || s == "\n\n" {
				rej.WriteString(s)
			}
		}
	}
	inDeletion := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("fodt: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			attr := func(name string) string {
				for _, a := range el.Attr {
					if a.Name.Local == name {
						return a.Value
					}
				}
				return ""
			}
			switch el.Name.Local {
			case "text":
				if el.Name.Space == "urn:oasis:names:tc:opendocument:xmlns:office:1.0" {
					inBody = true
				}
			case "tracked-changes":
				inTracked = true
			case "changed-region":
				cur = &region{}
				regions[attr("id")] = cur
			case "insertion":
				cur.kind = "ins"
				ins++
			case "deletion":
				cur.kind = "del"
				del++
				inDeletion = true
			case "change-start":
				// LibreOffice keeps deleted text in the body as a range, as
				// it does inserted text; older writers leave a point
				// (text:change) and keep the text in the region.
				if r := regions[attr("change-id")]; r != nil && r.kind == "ins" {
					openIns[attr("change-id")] = true
				} else if r != nil && r.kind == "del" {
					openDel[attr("change-id")] = true
				}
			case "change-end":
				delete(openIns, attr("change-id"))
				delete(openDel, attr("change-id"))
			case "change":
				if r := regions[attr("change-id")]; r != nil && r.kind == "del" && len(openIns) == 0 {
					rej.WriteString(r.text.String())
				}
			case "s":
				n, _ := strconv.Atoi(attr("c"))
				write(strings.Repeat(" ", max(1, n)), inDeletion)
			case "tab":
				write(" ", inDeletion)
			case "line-break":
				write("\n", inDeletion)
			case "change-info":
				d.Skip()
			}
		case xml.EndElement:
			switch el.Name.Local {
			case "tracked-changes":
				inTracked = false
			case "deletion":
				inDeletion = false
			case "p", "h":
				write("\n\n", inDeletion)
			}
		case xml.CharData:
			write(string(el), inDeletion)
		}
	}
	return acc.String(), rej.String(), ins, del
}

// cuadEdits are CUAD contracts (../shared/data, when present) each with a
// clause inserted, a paragraph deleted, "not" inserted and "may" made
// "shall": template and contract.
func cuadEdits(t *testing.T, n int) [][3]string {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "data", "legalbenchrag", "corpus", "cuad", "*.txt"))
	var out [][3]string
	for _, f := range files[:min(n, len(files))] {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		c := text
		if i := strings.Index(c[len(c)/2:], "\n\n"); i >= 0 {
			at := len(c)/2 + i + 2
			c = c[:at] + nonSolicit + "\n\n" + c[at:]
		}
		c = strings.Replace(c, " shall ", " shall not ", 1)
		c = strings.Replace(c, " may ", " shall ", 1)
		if i := strings.Index(c[len(c)/4:], "\n\n"); i >= 0 {
			at := len(c)/4 + i + 2
			if j := strings.Index(c[at:], "\n\n"); j > 0 {
				c = c[:at] + c[at+j+2:]
			}
		}
		out = append(out, [3]string{filepath.Base(f), text, c})
	}
	return out
}

// TestRedlineCUAD: on real contracts (every character they hold), the
// redline's text with all changes accepted has the contract's words and
// with all rejected the template's.
func TestRedlineCUAD(t *testing.T) {
	pairs := cuadEdits(t, 40)
	if len(pairs) == 0 {
		t.Skip("../shared/data is absent")
	}
	for _, p := range pairs {
		doc := parts(t, redline(t, p[1], p[2]))
		checkPackage(t, doc)
		accepted, rejected, ins, del := readRevisions(t, doc["word/document.xml"])
		if !slices.Equal(words(accepted), words(p[2])) {
			t.Errorf("%s: accept all differs from the contract:\n%s", p[0], firstDifference(words(accepted), words(p[2])))
		}
		if !slices.Equal(words(rejected), words(p[1])) {
			t.Errorf("%s: reject all differs from the template:\n%s", p[0], firstDifference(words(rejected), words(p[1])))
		}
		if ins+del == 0 {
			t.Errorf("%s: no insertion, no deletion", p[0])
		}
	}
}
