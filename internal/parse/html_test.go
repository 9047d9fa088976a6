package parse

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/parse/bombtest"
)

func TestParseHTML(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{
			"paragraphs, entities and whitespace",
			"<html><head><title>T</title><style>p{}</style></head><body><p>  Fees &amp;\n   Expenses&nbsp;&mdash; <b>net</b>\t30. </p><p>Second</p></body></html>",
			"Fees & Expenses — net 30.\n\nSecond",
		},
		{
			"script, noscript, template and hidden dropped",
			`<div>a<script>var x=1</script><noscript>no</noscript><template>t</template><span hidden>h</span><span style="display: none">n</span>b</div>`,
			"ab",
		},
		{
			"br and headings",
			"<h1>AGREEMENT</h1><h2>1. Term</h2>line one<br>line two",
			"AGREEMENT\n\n1. Term\n\nline one\nline two",
		},
		{
			"nested ordered lists with types",
			`<ol><li>First<ol type="a"><li>alpha</li><li>beta<ol type="i"><li>one</li><li>two</li></ol></li></ol></li><li>Second</li></ol>`,
			"1. First\n  a. alpha\n  b. beta\n    i. one\n    ii. two\n2. Second",
		},
		{
			"start, value, upper types and reversed",
			`<ol start="4" type="I"><li>x</li><li>y</li></ol><ol type="A" start="2"><li>p</li><li value="10">q</li></ol><ol reversed><li>r</li><li>s</li></ol>`,
			"IV. x\nV. y\n\nB. p\nJ. q\n\n2. r\n1. s",
		},
		{
			"bullets by depth, paragraph inside li",
			`<ul><li><p>top</p><ul><li>mid<ul><li>deep</li></ul></li></ul></li></ul>`,
			"• top\n  ◦ mid\n    ▪ deep",
		},
		{
			"table rows and cells",
			`<table><tr><th>Party</th><th>Address</th></tr><tr><td>Acme</td><td> 1 Main St </td></tr><tr><td></td><td>x</td></tr></table>after`,
			"Party\tAddress\nAcme\t1 Main St\n\tx\n\nafter",
		},
		{
			"paragraphs inside cells stay on the row",
			`<table><tr><td><p>1.</p></td><td><p>First para.</p><p>Second para.</p></td></tr><tr><td><p>2.</p></td><td><div>Next</div></td></tr></table>`,
			"1.\tFirst para.\nSecond para.\n2.\tNext",
		},
		{
			"pre keeps whitespace",
			"<p>a</p><pre>  x  y\n z</pre>",
			"a\n\n  x  y\n z",
		},
		{
			"implied end tags",
			"<p>one<p>two<li>three",
			"one\n\ntwo\n\n• three",
		},
		{
			"list-style-type in a style attribute, on the list and on an item",
			`<ol style="list-style-type: lower-roman"><li>x</li><li style="list-style: upper-alpha inside">y</li></ol><ul style="list-style-type:decimal"><li>p</li><li>q</li></ul>`,
			"i. x\nB. y\n\n1. p\n2. q",
		},
		{
			"list-style-type none: the item's own typed number is all a reader sees",
			`<ol style="list-style-type:none"><li>(a) first</li><li>(b) second</li></ol>`,
			"(a) first\n(b) second",
		},
		{
			"style sheet rules: list-style-type by class, ::before content with a counter",
			`<html><head><style>/* lists */ ol.alpha { list-style-type: lower-alpha } .lst-kix_1-0>li:before{content:"(" counter(lst-ctn-kix_1-0,lower-latin) ") "} .lst-kix_2-0 > li::before { content: "\2022  " } @media print { p { color: black } }</style></head><body>` +
				`<ol class="alpha"><li>x</li><li>y</li></ol><ol class="c3 lst-kix_1-0 start" start="3"><li>Licence</li><li>Fees</li></ol><ul class="lst-kix_2-0"><li>dot</li></ul></body></html>`,
			"a. x\nb. y\n\n(c) Licence\n(d) Fees\n\n• dot",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := parseHTML(context.Background(), []byte(tt.in), nil)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Text != tt.want {
				t.Errorf("text =\n%q\nwant\n%q", doc.Text, tt.want)
			}
			checkDoc(t, doc)
		})
	}
}

func TestParseHTMLBlocks(t *testing.T) {
	doc, err := parseHTML(context.Background(), []byte(`<h2>Definitions</h2><p>Intro text.</p><ol><li>Alpha<ol type="a"><li>beta</li></ol></li></ol>`), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkDoc(t, doc)
	type got struct {
		kind  document.BlockKind
		text  string
		level int
		label string
	}
	var blocks []got
	for _, b := range doc.Blocks {
		blocks = append(blocks, got{b.Kind, doc.Slice(b.Span), b.Level, b.Label})
	}
	want := []got{
		{document.BlockHeading, "Definitions", 1, ""},
		{document.BlockParagraph, "Intro text.", 0, ""},
		{document.BlockListItem, "a. beta", 1, "a."},
		{document.BlockListItem, "1. Alpha\n  a. beta", 0, "1."},
	}
	if len(blocks) != len(want) {
		t.Fatalf("blocks = %+v, want %+v", blocks, want)
	}
	for i := range want {
		if blocks[i] != want[i] {
			t.Errorf("block %d = %+v, want %+v", i, blocks[i], want[i])
		}
	}
}

func TestParseHTMLCharset(t *testing.T) {
	in := []byte("<html><head><meta charset=\"windows-1252\"></head><body><p>Caf\xe9 \x93x\x94</p></body></html>")
	doc, err := parseHTML(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Text != "Café “x”" {
		t.Errorf("text = %q", doc.Text)
	}
	// Declared latin-1 but actually UTF-8: the bytes win.
	doc, err = parseHTML(context.Background(), []byte(`<meta charset="iso-8859-1"><p>Café</p>`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Text != "Café" {
		t.Errorf("text = %q", doc.Text)
	}
}

// TestParseHTMLFixtures checks testdata/html/*.html against .want files.
func TestParseHTMLFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/html/*.html")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(strings.TrimSuffix(f, ".html") + ".want")
		if err != nil {
			t.Fatal(err)
		}
		doc, err := parseHTML(context.Background(), data, nil)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		checkDoc(t, doc)
		if doc.Text != strings.TrimRight(string(want), "\n") {
			t.Errorf("%s: text =\n%s\nwant\n%s", f, doc.Text, want)
		}
	}
}

func FuzzParseHTML(f *testing.F) {
	for _, s := range []string{
		"<p>a &amp; b</p>", "<ol start=3 type=i><li>x<ul><li>y</ul></ol>", "<table><tr><td>a<td>b</table>",
		"<pre>\r\n x</pre>", "<h3>h</h3><br><br>", "\xff\xfe<\x00p\x00>\x00", "<li value=-5>",
	} {
		f.Add([]byte(s))
	}
	for _, b := range bombtest.Seeds("html") {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := parseHTML(context.Background(), data, nil)
		if err != nil {
			return
		}
		checkDoc(t, doc)
	})
}

// A page whose style sheets run past the megabyte pakton reads is read with
// the rules before it; its comments cost one pass however many there are.
func TestParseHTMLLargeStyleSheet(t *testing.T) {
	css := strings.Repeat("/* x */", 200_000) + strings.Repeat("p{color:red}", 20_000) + "ol{list-style-type:upper-roman}"
	doc, err := parseHTML(context.Background(), []byte("<style>"+css+"</style><ol><li>a</li></ol>"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Text != "1. a" {
		t.Errorf("text = %q, want the default marker: the rule past the limit is not read", doc.Text)
	}
}
