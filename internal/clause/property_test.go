package clause

import (
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/numbering"
)

var vocabulary = []string{
	"the", "supplier", "shall", "deliver", "products", "within", "thirty", "days", "of", "receipt",
	"and", "customer", "may", "terminate", "this", "agreement", "upon", "notice", "in", "writing",
	"für", "Lieferung", "naïve", "café", "日本語", "€100", "—", "“quoted”", "[***]", "(as", "defined)",
	"pursuant", "to", "Section", "2.3", "$1.5", "million", "on", "March", "1.", "2019", "(a)", "Exhibit",
	"A", "provided", "that", "any", "Confidential", "Information", "is", "returned", "promptly.",
}

type genNode struct {
	label, parent string
}

// generator writes a random contract and remembers the structure it wrote.
type generator struct {
	r     *rand.Rand
	b     strings.Builder
	clean bool // no noise: every written label must be recovered
	want  []genNode
}

func (g *generator) words(n int) string {
	var ws []string
	for i := 0; i < n; i++ {
		w := vocabulary[g.r.Intn(len(vocabulary))]
		if g.clean && strings.ContainsAny(w, "0123456789()$[“") {
			w = "lorem"
		}
		ws = append(ws, w)
	}
	return strings.Join(ws, " ")
}

// sentence writes body text, wrapping lines; wrapped lines start with a
// lower-case word so a clean document never starts a line with a number.
func (g *generator) sentence() string {
	var lines []string
	for i := 0; i <= g.r.Intn(3); i++ {
		lines = append(lines, "text "+g.words(3+g.r.Intn(12)))
	}
	s := strings.Join(lines, "\n")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

func (g *generator) lineStart() {
	if g.r.Intn(3) == 0 {
		g.b.WriteString("\n")
	}
	switch g.r.Intn(5) {
	case 0:
		g.b.WriteString("    ")
	case 1:
		g.b.WriteString("\t")
	}
}

func (g *generator) noise() {
	if g.clean || g.r.Intn(6) != 0 {
		return
	}
	noises := []string{"Page 3", "Source: ACME CORP, 10-K, 2/27/2020", "[***]", "12", "1. 2019 was a year", "$1.5 million", "(the \"Buyer\")", "Section 2.3 of the Loan", "\u00a0", "\r"}
	g.b.WriteString(noises[g.r.Intn(len(noises))] + "\n")
}

var itemStyles = [][2]string{{"(", ")"}, {"", ")"}}

func letter(n int) string { return string(rune('a' + n - 1)) }

// items writes a list of (a)/(i)/(A) items at list depth d under parent.
func (g *generator) items(d int, parent string) {
	n := 1 + g.r.Intn(6)
	for i := 1; i <= n; i++ {
		var lab string
		switch d {
		case 0:
			lab = "(" + letter(i) + ")"
		case 1:
			lab = "(" + numbering.Roman(i) + ")"
		default:
			lab = "(" + strings.ToUpper(letter(i)) + ")"
		}
		g.lineStart()
		g.b.WriteString(lab + " " + g.sentence() + "\n")
		g.want = append(g.want, genNode{lab, parent})
		g.noise()
		if d < 2 && g.r.Intn(4) == 0 {
			g.items(d+1, lab)
		}
	}
}

func (g *generator) decimal(prefix []int, parent string, maxDepth int) {
	n := 1 + g.r.Intn(5)
	for i := 1; i <= n; i++ {
		nums := append(append([]int{}, prefix...), i)
		var parts []string
		for _, v := range nums {
			parts = append(parts, fmt.Sprint(v))
		}
		lab := strings.Join(parts, ".")
		g.lineStart()
		if len(nums) == 1 {
			g.b.WriteString(lab + ". ")
		} else {
			g.b.WriteString(lab + " ")
		}
		if g.r.Intn(2) == 0 {
			g.b.WriteString("HEADING " + strings.ToUpper(letter(1+g.r.Intn(20))) + "\n")
		} else {
			g.b.WriteString("Title Case. ")
		}
		g.b.WriteString(g.sentence() + "\n")
		g.want = append(g.want, genNode{lab, parent})
		g.noise()
		if len(nums) < maxDepth && g.r.Intn(2) == 0 {
			g.decimal(nums, lab, maxDepth)
		} else if g.r.Intn(3) == 0 {
			g.items(0, lab)
		}
	}
}

func (g *generator) contract() string {
	if g.r.Intn(2) == 0 {
		g.b.WriteString("MASTER AGREEMENT\n\nThis Agreement is made by ACME (the \"Company\").\n\n")
	}
	kind := g.r.Intn(3)
	switch kind {
	case 0:
		g.decimal(nil, "", 1+g.r.Intn(3))
	case 1:
		for a := 1; a <= 1+g.r.Intn(4); a++ {
			lab := "ARTICLE " + strings.ToUpper(numbering.Roman(a))
			g.b.WriteString("\n" + lab + "\nGENERAL TERMS\n")
			g.want = append(g.want, genNode{lab, ""})
			for s := 1; s <= 1+g.r.Intn(3); s++ {
				sl := fmt.Sprintf("Section %d.%d", a, s)
				g.b.WriteString(sl + " Scope. " + g.sentence() + "\n")
				g.want = append(g.want, genNode{sl, lab})
				if g.r.Intn(2) == 0 {
					g.items(0, sl)
				}
			}
		}
	case 2:
		for i := 0; i < 3; i++ {
			g.b.WriteString(g.sentence() + "\n\n")
		}
	}
	// A schedule before any numbered body reads as a cover page, so
	// schedules follow a numbered body only.
	if kind != 2 && g.r.Intn(2) == 0 {
		g.b.WriteString("\nSCHEDULE 1\nPRODUCTS\n")
		g.want = append(g.want, genNode{"SCHEDULE 1", ""})
		g.decimal(nil, "SCHEDULE 1", 1)
	}
	s := g.b.String()
	if !g.clean && g.r.Intn(3) == 0 {
		// Render some line breaks as wide space runs, as SEC text does.
		s = strings.ReplaceAll(s, ".\n", ".     ")
	}
	return s
}

func TestPropertySynthetic(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	for seed := 0; seed < n; seed++ {
		g := &generator{r: rand.New(rand.NewSource(int64(seed))), clean: seed%2 == 0}
		text := g.contract()
		doc := &document.Document{Text: text}
		tr := Parse(doc)
		if err := Check(doc, tr); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, text)
		}
		if !g.clean {
			continue
		}
		// A clean document's structure must be recovered exactly.
		var got []genNode
		for _, nd := range tr.Nodes[1:] {
			if nd.Label == "" {
				continue
			}
			par := ""
			if nd.Parent > 0 {
				par = tr.Nodes[nd.Parent].Label
			}
			got = append(got, genNode{strings.TrimSuffix(nd.Label, "."), par})
		}
		want := g.want
		if fmt.Sprint(got) != fmt.Sprint(want) {
			var b strings.Builder
			Render(&b, doc, tr, RenderOptions{NoSpans: true})
			t.Fatalf("seed %d: structure\n got %v\nwant %v\n%s\n%s", seed, got, want, b.String(), text)
		}
	}
}

func FuzzParse(f *testing.F) {
	seeds := []string{
		"", "1. A\n1.1 B\n(a) c\n(i) d\n", "ARTICLE I\nX\nSection 1.1 Y. z\n", "SCHEDULE 1\n1. a",
		"\"X\" means y.\n\"Z\" means w.", "§ 1 A\n§ 2 B", "1.\n2.\n3.\n1. A\n", "a)\nb)\n(i)\n(h)\n(i)",
		"\xff\xfe1. \x00 (a)", "   1. a     2. b     (a) c", "Exhibit 10.1\n", "IN WITNESS WHEREOF",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	for seed := int64(0); seed < 20; seed++ {
		g := &generator{r: rand.New(rand.NewSource(seed))}
		f.Add(g.contract())
	}
	f.Fuzz(func(t *testing.T, text string) {
		doc := &document.Document{Text: text}
		tr := Parse(doc)
		if err := Check(doc, tr); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := Render(&b, doc, tr, RenderOptions{}); err != nil {
			t.Fatal(err)
		}
	})
}

func BenchmarkParse(b *testing.B) {
	path := corpusDir + "/cuad/MANUFACTURERSSERVICESLTD_06_05_2000-EX-10.14-OUTSOURCING AGREEMENT.txt"
	data, err := os.ReadFile(path)
	if err != nil {
		// Without the shared corpus, a large synthetic contract.
		var sb strings.Builder
		for seed := int64(0); sb.Len() < 1<<20; seed++ {
			g := &generator{r: rand.New(rand.NewSource(seed))}
			sb.WriteString(g.contract())
		}
		data = []byte(sb.String())
	}
	text := string(data)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Parse(&document.Document{Text: text})
	}
}
