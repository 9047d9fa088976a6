//go:build unix

package clause_test

// TestFormatAgreement checks, with no labels, that a contract's clause
// paths do not depend on its file format: CUAD contracts (the LegalBench-RAG
// reference texts, and the CUAD PDFs) are written by LibreOffice as Word 97
// .doc, .docx, .odt, .rtf and .html, each file is read by pakton and parsed,
// and every named node of the reference text's tree (article, section,
// clause, item, definition, schedule) is looked up in the other file's tree
// by the words it holds: its path there must be the text's. The PDFs are
// compared with their own reference text too. Each converted file is also
// opened by LibreOffice and saved as text, which writes the list numbers it
// shows into the text: that reading is compared with the text, and
// pakton's tree of the file with it, so a number the export lost is told
// from one pakton misread. docs/INGEST.md ("Clause paths in every format")
// has the table.
//
//	PAKTON_SLOW=1 go test ./internal/clause/ -run TestFormatAgreement -v -timeout 30m
//
// It needs LibreOffice (Debian package libreoffice-writer-nogui) and skips
// without it or without ../shared/data. Conversions are cached under the
// temporary directory (pakton-format-agreement), keyed by the source's bytes
// and the LibreOffice version, so a second run parses only.
// PAKTON_AGREEMENT_FILES=N sets how many text contracts are converted (60);
// PAKTON_AGREEMENT_ROW=TEXT prints the disagreements of the rows naming TEXT.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/parse"
)

const textCorpus = "../../../shared/data/legalbenchrag/corpus/cuad"

// agreementFormats are the formats LibreOffice writes, with its filters.
var agreementFormats = []struct{ ext, filter string }{
	{"doc", "doc:MS Word 97"},
	{"docx", "docx:MS Word 2007 XML"},
	{"odt", "odt:writer8"},
	{"rtf", "rtf:Rich Text Format"},
	{"html", "html:HTML (StarWriter)"},
}

// agreementMin is the share of the text's section paths each format must
// give the same. Two formats are under it, and held at what they give
// (docs/INGEST.md, "Clause paths in every format"), because the files
// LibreOffice writes show other numbers than the text: a Word 97 file has
// no restart that the rest of its list continues from, so LibreOffice
// writes each restarted number as a list of its own and the paragraphs
// after it continue the first list ("6." where the text says "2."); HTML
// has no bracketed list numbers (<ol type="a"> shows "a." where the text
// says "(a)") and collapses the runs of spaces that set off a number inside
// a line. LibreOffice's own reading of those files agrees with the text no
// better than pakton's (0.9028 for .doc, 0.8276 for .html).
const agreementMin = 0.98

var agreementFloor = map[string]float64{".doc (all)": 0.90, ".html (all)": 0.855}

// readerMin is the share of the section paths of LibreOffice's own reading
// of a file that pakton's reading of it must give the same: pakton reads
// the numbers a reader of the file sees, whatever the text said. RTF is
// not held to it: LibreOffice's RTF import counts restarted lists apart
// (its reading agrees with the text 0.81, pakton's 0.998, and with the same
// document as DOCX and ODT).
const readerMin = 0.98

var readerExempt = map[string]bool{".rtf against LibreOffice's reading": true}

func TestFormatAgreement(t *testing.T) {
	if os.Getenv("PAKTON_SLOW") != "1" {
		t.Skip("set PAKTON_SLOW=1 to convert CUAD contracts with LibreOffice")
	}
	if _, err := exec.LookPath("soffice"); err != nil {
		t.Skip("LibreOffice is not installed (Debian package libreoffice-writer-nogui)")
	}
	texts, _ := filepath.Glob(filepath.Join(textCorpus, "*.txt"))
	if len(texts) == 0 {
		t.Skip("../shared/data is absent")
	}
	sort.Strings(texts)
	n := 60
	if v := os.Getenv("PAKTON_AGREEMENT_FILES"); v != "" {
		fmt.Sscan(v, &n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()

	// The sources: every k-th text, and every PDF with its reference text.
	type source struct {
		name string // short name for messages
		path string // the file LibreOffice converts
		ref  string // the reference text
		pdf  bool
	}
	var srcs []source
	step := max(1, len(texts)/max(n, 1))
	for i := 0; i < len(texts) && len(srcs) < n; i += step {
		srcs = append(srcs, source{name: short(texts[i]), path: texts[i], ref: texts[i]})
	}
	pdfs, _ := filepath.Glob(filepath.Join(pdfDir, "*.pdf"))
	sort.Strings(pdfs)
	// The PDFs are read by pakton as they are. LibreOffice opens a PDF as
	// drawing (each line a positioned text frame, which a reader of a
	// word-processor file rightly does not take for body text), so a
	// document converted from a PDF is not one a lawyer receives.
	for _, p := range pdfs {
		ref := filepath.Join(textCorpus, strings.TrimSuffix(filepath.Base(p), ".pdf")+".txt")
		if _, err := os.Stat(ref); err == nil {
			srcs = append(srcs, source{name: short(p), path: p, ref: ref, pdf: true})
		}
	}

	cache := filepath.Join(os.TempDir(), "pakton-format-agreement")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	version := sofficeVersion(ctx)
	var textFiles []string
	for _, s := range srcs {
		if !s.pdf {
			textFiles = append(textFiles, s.path)
		}
	}
	// The texts with their numbering made lists (listify).
	listed := map[string]string{} // text → its .fodt
	var fodts []string
	for _, p := range textFiles {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		f := filepath.Join(cache, "lists-"+hex.EncodeToString(sum[:12])+".fodt")
		if err := os.WriteFile(f, []byte(listify(string(data))), 0o644); err != nil {
			t.Fatal(err)
		}
		listed[p] = f
		fodts = append(fodts, f)
	}
	converted := map[string]map[string]string{} // ext → source path → converted file
	convertedLists := map[string]map[string]string{}
	for _, f := range agreementFormats {
		m, err := convertCached(ctx, cache, version, "Text (encoded):UTF8", f.filter, f.ext, textFiles)
		if err != nil {
			t.Fatalf("LibreOffice: %v", err)
		}
		converted[f.ext] = m
		fromLists, err := convertCached(ctx, cache, version, "", f.filter, f.ext, fodts)
		if err != nil {
			t.Fatalf("LibreOffice: %v", err)
		}
		convertedLists[f.ext] = map[string]string{}
		for _, p := range textFiles {
			convertedLists[f.ext][p] = fromLists[listed[p]]
		}
	}
	// What LibreOffice itself shows of each file: the file opened and
	// saved as text, which writes every list number a reader sees into
	// the text. A format's export can lose what the source said (Word 97
	// has no restart that the list's later paragraphs continue from; HTML
	// has no "(a)"), and then the file a lawyer opens shows other numbers
	// than the text: these rows measure pakton's reader against a reader
	// of the same file.
	seen := map[string]string{} // converted file → LibreOffice's text of it
	for _, f := range agreementFormats {
		var files []string
		for _, m := range []map[string]map[string]string{converted, convertedLists} {
			for _, p := range textFiles {
				files = append(files, m[f.ext][p])
			}
		}
		in := ""
		if f.ext == "html" {
			in = "HTML (StarWriter)" // as a text document, not a web page
		}
		m, err := convertCached(ctx, cache, version, in, "txt:Text (encoded):UTF8", "txt", files)
		if err != nil {
			t.Fatalf("LibreOffice: %v", err)
		}
		for k, v := range m {
			seen[k] = v
		}
	}

	type tally struct {
		agree, total int
		files        int
		contracts    map[string]bool
		diffs        []string
	}
	table := map[string]*tally{}
	addTree := func(row string, ref *clause.Tree, refText string, tree *clause.Tree, doc *document.Document, name string) {
		tl := table[row]
		if tl == nil {
			tl = &tally{contracts: map[string]bool{}}
			table[row] = tl
		}
		agree, total, diffs := comparePaths(ref, refText, tree, doc.Text)
		tl.agree += agree
		tl.total += total
		tl.files++
		tl.contracts[strings.TrimSuffix(name, " (lists)")] = true
		for _, d := range diffs {
			tl.diffs = append(tl.diffs, name+": "+d)
		}
	}
	add := func(row string, ref *clause.Tree, refText string, doc *document.Document, name string) {
		addTree(row, ref, refText, clause.Parse(doc), doc, name)
	}
	// againstReader adds the rows of LibreOffice's reading of a file: how
	// its tree agrees with the text's, and how pakton's tree of the file
	// agrees with it.
	againstReader := func(format string, ref *clause.Tree, refText string, doc *document.Document, seenPath, name string) {
		if seenPath == "" {
			t.Errorf("%s%s: LibreOffice did not read it back", name, format)
			return
		}
		seenDoc, err := parse.File(ctx, seenPath, parse.Options{})
		if err != nil {
			t.Errorf("%s%s read back: %v", name, format, err)
			return
		}
		seenTree := clause.Parse(seenDoc)
		addTree(format+" as LibreOffice shows it", ref, refText, seenTree, seenDoc, name)
		addTree(format+" against LibreOffice's reading", seenTree, seenDoc.Text, clause.Parse(doc), doc, name)
	}
	for _, s := range srcs {
		if ctx.Err() != nil {
			t.Fatal("deadline: ", ctx.Err())
		}
		refDoc, err := parse.File(ctx, s.ref, parse.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ref := clause.Parse(refDoc)
		origin := "text"
		if s.pdf {
			origin = "PDF"
			doc, err := parse.File(ctx, s.path, parse.Options{OCR: "off"})
			if err != nil {
				t.Errorf("%s: %v", s.name, err)
			} else {
				add(".pdf (the PDF itself)", ref, refDoc.Text, doc, s.name)
			}
		}
		if s.pdf {
			continue
		}
		for _, f := range agreementFormats {
			p := converted[f.ext][s.path]
			if p == "" {
				t.Errorf("%s.%s: not converted", s.name, f.ext)
				continue
			}
			doc, err := parse.File(ctx, p, parse.Options{})
			if err != nil {
				t.Errorf("%s.%s: %v", s.name, f.ext, err)
				continue
			}
			add("."+f.ext+" from "+origin, ref, refDoc.Text, doc, s.name)
			add("."+f.ext+" (all)", ref, refDoc.Text, doc, s.name)
			againstReader("."+f.ext, ref, refDoc.Text, doc, seen[p], s.name)
			// The same text with its numbering in lists.
			p = convertedLists[f.ext][s.path]
			if doc, err = parse.File(ctx, p, parse.Options{}); err != nil {
				t.Errorf("%s.%s (lists): %v", s.name, f.ext, err)
				continue
			}
			add("."+f.ext+" from text, numbers in lists", ref, refDoc.Text, doc, s.name+" (lists)")
			add("."+f.ext+" (all)", ref, refDoc.Text, doc, s.name+" (lists)")
			againstReader("."+f.ext, ref, refDoc.Text, doc, seen[p], s.name+" (lists)")
		}
	}

	var rows []string
	for k := range table {
		rows = append(rows, k)
	}
	sort.Strings(rows)
	var b strings.Builder
	b.WriteString("\n| format | contracts | files | section paths | agree | share |\n|---|---|---|---|---|---|\n")
	for _, k := range rows {
		tl := table[k]
		share := float64(tl.agree) / float64(max(tl.total, 1))
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %.4f |\n", k, len(tl.contracts), tl.files, tl.total, tl.agree, share)
	}
	t.Log(b.String())
	for _, k := range rows {
		tl := table[k]
		if !strings.HasSuffix(k, "(all)") && !strings.Contains(k, "PDF itself") && !strings.HasSuffix(k, "reading") && os.Getenv("PAKTON_AGREEMENT_ROW") == "" {
			continue
		}
		if r := os.Getenv("PAKTON_AGREEMENT_ROW"); r != "" && !strings.Contains(k, r) {
			continue
		}
		share := float64(tl.agree) / float64(max(tl.total, 1))
		if len(tl.diffs) > 0 {
			shown := tl.diffs
			if len(shown) > 60 && !testing.Verbose() {
				shown = shown[:60]
			}
			t.Logf("%s: %d disagreements:\n  %s", k, len(tl.diffs), strings.Join(shown, "\n  "))
		}
		if strings.HasSuffix(k, "(all)") {
			if len(tl.contracts) < 50 {
				t.Errorf("%s: %d contracts, fewer than 50", k, len(tl.contracts))
			}
			min := agreementMin
			if f, ok := agreementFloor[k]; ok {
				min = f
			}
			if share < min {
				t.Errorf("%s: %.4f of section paths agree with the text's tree, under %.3f", k, share, min)
			}
		}
		if strings.HasSuffix(k, "against LibreOffice's reading") && !readerExempt[k] && share < readerMin {
			t.Errorf("%s: %.4f of section paths agree with LibreOffice's reading of the same files, under %.2f", k, share, readerMin)
		}
	}
}

// short names a file in messages: its first 40 characters.
func short(p string) string {
	b := filepath.Base(p)
	if len(b) > 40 {
		return b[:40] + "…"
	}
	return b
}

// sofficeVersion is LibreOffice's version line, part of the cache key.
func sofficeVersion(ctx context.Context) string {
	out, _ := exec.CommandContext(ctx, "soffice", "--version").Output()
	return strings.TrimSpace(string(out))
}

// convertCached converts files (read with LibreOffice's import filter in)
// to ext with filter out, keeping the results in cache keyed by the
// source's bytes, the filters and the LibreOffice version. It returns the
// converted file of every source.
func convertCached(ctx context.Context, cache, version, in, out, ext string, files []string) (map[string]string, error) {
	res := map[string]string{}
	var todo []string
	keyOf := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", version, in, out)
		h.Write(data)
		key := hex.EncodeToString(h.Sum(nil))[:24]
		keyOf[f] = key
		p := filepath.Join(cache, key+"."+ext)
		res[f] = p
		if _, err := os.Stat(p); err != nil {
			todo = append(todo, f)
		}
	}
	if len(todo) == 0 {
		return res, nil
	}
	work, err := os.MkdirTemp(cache, "work-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	// LibreOffice names its output after the input: copy each source to
	// a name of its own so names never clash.
	var inputs []string
	for _, f := range todo {
		p := filepath.Join(work, keyOf[f]+filepath.Ext(f))
		data, _ := os.ReadFile(f)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
		inputs = append(inputs, p)
	}
	outDir := filepath.Join(work, "out")
	args := []string{"-env:UserInstallation=file://" + filepath.Join(work, "profile"), "--headless"}
	if in != "" {
		args = append(args, "--infilter="+in)
	}
	args = append(append(args, "--convert-to", out, "--outdir", outDir), inputs...)
	cmd := exec.CommandContext(ctx, "soffice", args...)
	cmd.WaitDelay = 5 * time.Second
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("soffice --convert-to %s: %v\n%s", out, err, b)
	}
	for _, f := range todo {
		got := filepath.Join(outDir, keyOf[f]+"."+ext)
		if err := os.Rename(got, res[f]); err != nil {
			return nil, fmt.Errorf("%s was not converted to %s: %v", f, ext, err)
		}
	}
	return res, nil
}

// word is a run of letters and digits of a text, lower-cased, with its
// byte offset.
type word struct {
	w   string
	pos int
}

func words(s string) []word {
	var out []word
	start := -1
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, word{strings.ToLower(s[start:i]), start})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, word{strings.ToLower(s[start:]), start})
	}
	return out
}

// alignWords maps each word of a to the index of the same word in b, or -1:
// equal runs are followed, and after a difference the texts are brought
// together again at the nearest place where three words agree.
func alignWords(a, b []word) []int {
	m := make([]int, len(a))
	for i := range m {
		m[i] = -1
	}
	const look = 400
	i, j := 0, 0
	same := func(i, j int) bool {
		for k := 0; k < 3; k++ {
			if i+k >= len(a) || j+k >= len(b) {
				return i+k >= len(a) && j+k >= len(b) && k > 0
			}
			if a[i+k].w != b[j+k].w {
				return false
			}
		}
		return true
	}
	for i < len(a) && j < len(b) {
		if a[i].w == b[j].w {
			m[i] = j
			i++
			j++
			continue
		}
		// The nearest resynchronisation by total distance.
		found := false
		for d := 1; d <= 2*look && !found; d++ {
			for di := 0; di <= d; di++ {
				dj := d - di
				if di > look || dj > look {
					continue
				}
				if same(i+di, j+dj) {
					i, j = i+di, j+dj
					found = true
					break
				}
			}
		}
		if !found {
			i++
		}
	}
	return m
}

// comparePaths counts the named nodes of ref whose path got gives the same:
// each node is found in got's text by the last word of its own text (its
// label when it has no text of its own), mapped through the word alignment.
func comparePaths(ref *clause.Tree, refText string, got *clause.Tree, gotText string) (agree, total int, diffs []string) {
	rw, gw := words(refText), words(gotText)
	m := alignWords(rw, gw)
	rix, gix := document.NewIndex(refText), document.NewIndex(gotText)
	// Word index of a code-point offset in ref.
	wordAt := func(byteOff int) int {
		return sort.Search(len(rw), func(i int) bool { return rw[i].pos >= byteOff })
	}
	for id := 1; id < len(ref.Nodes); id++ {
		n := &ref.Nodes[id]
		switch n.Kind {
		case clause.KindParagraph, clause.KindPreamble, clause.KindDocument:
			continue
		}
		total++
		want := ref.Path(id)
		// Where the file's tree puts most of the node's own words: a
		// word the reference text has inside the clause but the file's
		// reader sets aside or elsewhere (a page number, a running
		// footer) does not move it. A word outside every node of the
		// file's tree names no clause.
		lo, hi := wordAt(rix.Byte(n.Own.Start)), wordAt(rix.Byte(n.Own.End))
		votes := map[int]int{}
		at, best, mapped := -1, 0, false
		for k := hi - 1; k >= lo; k-- {
			if m[k] < 0 {
				continue
			}
			mapped = true
			id := got.At(gix.Rune(gw[m[k]].pos))
			if id == 0 {
				continue
			}
			votes[id]++
			if votes[id] > best {
				at, best = id, votes[id]
			}
		}
		if !mapped {
			diffs = append(diffs, fmt.Sprintf("%q: its words are not in the file", want))
			continue
		}
		if at < 0 {
			at = 0
		}
		have := got.Path(at)
		if normPath(have) == normPath(want) {
			agree++
			continue
		}
		diffs = append(diffs, fmt.Sprintf("%q read as %q (%s)", want, have, excerpt(refText, rix.Byte(n.Own.Start))))
	}
	return agree, total, diffs
}

// normPath compares paths as a reader reads them: white space, the dash
// between a keyword and its number ("ARTICLE – 1" in a PDF, "ARTICLE - 1"
// in its reference text, which writes every dash as a hyphen), curly and
// straight quotes (SCHEDULE “A” in a PDF, SCHEDULE "A" in its reference
// text, which writes every quote straight) and soft hyphens, which a reader
// never sees, do not tell two clauses apart.
func normPath(p string) string {
	p = strings.NewReplacer("–", "-", "—", "-", "\u00ad", "", "“", "\"", "”", "\"", "‘", "'", "’", "'").Replace(p)
	return strings.Join(strings.Fields(p), " ")
}

func excerpt(s string, i int) string {
	e := min(len(s), i+50)
	for e < len(s) && !utf8.RuneStart(s[e]) {
		e++
	}
	return strings.Join(strings.Fields(s[i:e]), " ")
}

// Numbering a reader sees but the text stream does not hold: listify
// rewrites a contract's text as a flat ODF document in which the
// paragraphs that open with a decimal number ("16.2 Limits") are numbered
// headings of the document's outline (text:h, whose "16.2" the outline
// style generates) and those that open with a letter in brackets ("(b) the
// Licensee …") are items of one lettered list whose numbers its list style
// generates. A number that follows the one before continues the count; one
// that does not restarts it (text:start-value). LibreOffice then writes
// these numbers into each format's own list tables (Word's list and
// override tables, RTF's \listtable, ODF's outline and list styles, HTML's
// <ol>), so a reader must rebuild the numbers the text showed. A decimal
// number whose parent is not the number before it ("16.2" under "15")
// stays text, and so does a letter item after an item of the other kind
// whose number the lettered list would not give.
var (
	listDecimal = regexp.MustCompile(`^(\d{1,2}(?:\.\d{1,2}){0,3})(\.?)[ \t]+(\S.*)$`)
	listLetter  = regexp.MustCompile(`^\(([a-z])\)[ \t]+(\S.*)$`)
)

func listify(text string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
<office:styles>
<text:outline-style style:name="Outline">`)
	for lv := 1; lv <= 4; lv++ {
		suffix := ""
		if lv == 1 {
			suffix = ` style:num-suffix="."`
		}
		fmt.Fprintf(&b, `<text:outline-level-style text:level="%d" style:num-format="1"%s text:display-levels="%d"><style:list-level-properties text:list-level-position-and-space-mode="label-alignment"><style:list-level-label-alignment text:label-followed-by="space"/></style:list-level-properties></text:outline-level-style>`, lv, suffix, lv)
	}
	b.WriteString(`</text:outline-style>
</office:styles>
<office:automatic-styles>
<text:list-style style:name="Let"><text:list-level-style-number text:level="1" style:num-format="a" style:num-prefix="(" style:num-suffix=")"><style:list-level-properties text:list-level-position-and-space-mode="label-alignment"><style:list-level-label-alignment text:label-followed-by="space"/></style:list-level-properties></text:list-level-style-number></text:list-style>
</office:automatic-styles>
<office:body><office:text>
`)
	var stack []int // the outline's current numbers, by level
	letter := 0     // the lettered list's current value
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		if m := listDecimal.FindStringSubmatch(t); m != nil && (m[2] == "." || strings.Contains(m[1], ".")) {
			var nums []int
			for _, p := range strings.Split(m[1], ".") {
				var v int
				fmt.Sscan(p, &v)
				nums = append(nums, v)
			}
			k := len(nums)
			parentOK := len(stack) >= k-1
			for i := 0; parentOK && i < k-1; i++ {
				parentOK = stack[i] == nums[i]
			}
			if parentOK && nums[k-1] > 0 {
				prev := 0
				if len(stack) >= k {
					prev = stack[k-1]
				}
				start := ""
				if nums[k-1] != prev+1 {
					start = fmt.Sprintf(` text:restart-numbering="true" text:start-value="%d"`, nums[k-1])
				}
				stack = append(stack[:k-1], nums[k-1])
				fmt.Fprintf(&b, `<text:h text:outline-level="%d"%s>%s</text:h>`+"\n", k, start, odfText(m[3]))
				continue
			}
		}
		if m := listLetter.FindStringSubmatch(t); m != nil {
			v := int(m[1][0]-'a') + 1
			start := ""
			if v != letter+1 {
				start = fmt.Sprintf(` text:start-value="%d"`, v)
			}
			letter = v
			fmt.Fprintf(&b, `<text:list text:style-name="Let" text:continue-numbering="true"><text:list-item%s><text:p>%s</text:p></text:list-item></text:list>`+"\n", start, odfText(m[2]))
			continue
		}
		fmt.Fprintf(&b, "<text:p>%s</text:p>\n", odfText(t))
	}
	b.WriteString("</office:text></office:body></office:document>\n")
	return b.String()
}

// odfText escapes text for ODF, keeping runs of spaces and tabs.
func odfText(s string) string {
	var b strings.Builder
	spaces := 0
	flush := func() {
		if spaces > 0 {
			b.WriteByte(' ')
			if spaces > 1 {
				fmt.Fprintf(&b, `<text:s text:c="%d"/>`, spaces-1)
			}
			spaces = 0
		}
	}
	for _, r := range s {
		switch r {
		case ' ':
			spaces++
			continue
		}
		flush()
		switch r {
		case '\t':
			b.WriteString("<text:tab/>")
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		default:
			if r < 0x20 || r == 0xfffe || r == 0xffff {
				continue
			}
			b.WriteRune(r)
		}
	}
	flush()
	return b.String()
}
