package headline

import (
	"fmt"
	"strings"
)

// subsetInfo is how a page names a benchmark and what the PAKTON paper
// reports for it.
type subsetInfo struct {
	name   string // as a row names it
	corpus string // what one of its documents is, for "the whole N-… corpus"
	paper  *paper
}

// paper is the PAKTON paper's retrieval row for a subset (its Table 2:
// hosted embeddings, a reranker and GPT-4o query rewriting, each query
// searching only its own document, on LegalBench-RAG-mini), in percent.
type paper struct{ r1, r8, p1 float64 }

var subsets = map[string]subsetInfo{
	"cuad":             {"CUAD", "contract", &paper{16.52, 46.67, 11.02}},
	"cuad-words":       {"CUAD, words only", "contract", nil},
	"cuad-paraphrased": {"CUAD, our plain-language rewrites of its questions", "contract", nil},
	"cuad-newtypes":    {"CUAD, question types its templates never ask", "contract", nil},
	"contractnli":      {"ContractNLI", "NDA", &paper{53.14, 89.71, 33.02}},
	"maud":             {"MAUD, dev half", "agreement", &paper{23.99, 46.42, 25.47}},
	"privacyqa":        {"PrivacyQA, dev half", "policy", &paper{13.34, 43.39, 19.94}},
}

// headlineKeys are the README's rows, in order: the four subsets in the
// product's default mode.
var headlineKeys = []string{"cuad", "contractnli", "maud", "privacyqa"}

// evaluationKeys are EVALUATION.md's rows, in order.
var evaluationKeys = []string{"cuad", "cuad-words", "cuad-paraphrased", "cuad-newtypes", "contractnli", "maud", "privacyqa"}

func searched(s Subset) string {
	if s.Scope == "document" {
		return "each query's own document"
	}
	return fmt.Sprintf("the whole %s-%s corpus", thousands(s.Documents), subsets[s.Key].corpus)
}

// README renders the README's block.
func README(n *Numbers) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "\nMeasured with no model server on commit %s (%s):\n\n", n.Commit, n.Measured)
	b.WriteString("| LegalBench-RAG dev set (queries) | searched | R@1 | R@8 | R@64 | P@1 | PAKTON paper: R@1 / R@8 / P@1 |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, key := range headlineKeys {
		s, ok := n.Subset(key)
		if !ok {
			return "", fmt.Errorf("headline numbers: no %q subset", key)
		}
		info := subsets[key]
		fmt.Fprintf(&b, "| %s (%s) | %s | %.2f | %.2f | %.2f | %.2f | %s |\n", info.name, thousands(s.Queries), searched(s),
			s.Recall["1"], s.Recall["8"], s.Recall["64"], s.Precision["1"], info.paper.cells())
	}
	b.WriteString("\n")
	var more []string
	if s, ok := n.Subset("cuad-words"); ok {
		more = append(more, fmt.Sprintf("Words alone (`--provisions off`): CUAD R@1 %.2f.", s.Recall["1"]))
	}
	p, okP := n.Subset("cuad-paraphrased")
	t, okT := n.Subset("cuad-newtypes")
	if okP && okT {
		more = append(more, fmt.Sprintf("Questions worded unlike the benchmark's templates do worse: CUAD R@1 %.2f on our plain-language rewrites of the same questions, %.2f on question types the templates never ask (mostly dates in the preamble).",
			p.Recall["1"], t.Recall["1"]))
	}
	if r := n.Review; r.Cells > 0 {
		more = append(more, fmt.Sprintf("The offline review of CUAD's %d labelled contracts (%s cells), detectors cross-validated in %d folds: micro F1 %.3f, AUPR %.3f, precision %.3f at 80%% recall, macro F1 %.3f.",
			r.Contracts, thousands(r.Cells), r.Folds, r.MicroF1, r.AUPR, r.PAt80R, r.MacroF1))
	}
	b.WriteString(wrap(strings.Join(more, " "), 110))
	b.WriteString("\n")
	return b.String(), nil
}

// Evaluation renders docs/EVALUATION.md's block.
func Evaluation(n *Numbers) (string, error) {
	var b strings.Builder
	b.WriteString("\n| benchmark (queries) | searched | detectors | R@1 | R@8 | R@64 | P@1 | P@8 | PAKTON paper: R@1 / R@8 / P@1 |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, key := range evaluationKeys {
		s, ok := n.Subset(key)
		if !ok {
			if key == "cuad" || key == "contractnli" || key == "maud" || key == "privacyqa" {
				return "", fmt.Errorf("headline numbers: no %q subset", key)
			}
			continue
		}
		info := subsets[key]
		fmt.Fprintf(&b, "| %s (%s) | %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %s |\n", info.name, thousands(s.Queries), searched(s), s.Provisions,
			s.Recall["1"], s.Recall["8"], s.Recall["64"], s.Precision["1"], s.Precision["8"], info.paper.cells())
	}
	if r := n.Review; r.Cells > 0 {
		b.WriteString("\n| offline review (CUAD labels) | contracts × provisions | micro P | micro R | micro F1 | macro F1 | AUPR | P@80R | values right (development contracts) |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
		fmt.Fprintf(&b, "| detectors cross-validated in %d folds | %d contracts, %s cells | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %s of %s |\n",
			r.Folds, r.Contracts, thousands(r.Cells), r.MicroP, r.MicroR, r.MicroF1, r.MacroF1, r.AUPR, r.PAt80R, thousands(r.ValuesRight), thousands(r.Values))
	}
	b.WriteString("\n" + wrap(fmt.Sprintf("Measured on commit %s (%s); fingerprint of the tuned constants `%s`. The commands, with `$DATA` the shared data directory:",
		n.Commit, n.Measured, short(n.Fingerprint)), 110) + "\n```sh\n")
	for _, c := range n.Commands {
		b.WriteString(c + "\n")
	}
	b.WriteString("```\n\n")
	return b.String(), nil
}

func (p *paper) cells() string {
	if p == nil {
		return "—"
	}
	return fmt.Sprintf("%.2f / %.2f / %.2f", p.r1, p.r8, p.p1)
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// wrap breaks text into lines of at most width characters at spaces.
func wrap(text string, width int) string {
	var b strings.Builder
	line := 0
	for _, w := range strings.Fields(text) {
		n := len([]rune(w))
		if line > 0 && line+1+n > width {
			b.WriteString("\n")
			line = 0
		} else if line > 0 {
			b.WriteString(" ")
			line++
		}
		b.WriteString(w)
		line += n
	}
	if line > 0 {
		b.WriteString("\n")
	}
	return b.String()
}
