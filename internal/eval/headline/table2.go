package headline

import (
	"fmt"
	"math"
	"strings"
)

// ks are the cut-offs of PAKTON's Table 2.
var ks = []string{"1", "2", "4", "8", "16", "32", "64"}

// table2Keys are the headline runs Table 2 shows, in its order; "all" is
// their mean.
var table2Keys = []struct{ key, name string }{
	{"privacyqa", "PrivacyQA"}, {"contractnli", "ContractNLI"}, {"maud", "MAUD"}, {"cuad", "CUAD"},
}

// others are the rows printed beside pakton's, as PAKTON's Table 2 reports
// them (percent; NaN where the table prints none): the paper's own method
// (OpenAI embeddings, a Cohere reranker and GPT-4o query rewriting, each
// question searching only its own document, on LegalBench-RAG-mini) and
// LegalBench-RAG's baselines (500-character chunks or the recursive
// splitter, OpenAI embeddings).
var others = []struct {
	key, method string
	p, r        [7]float64
}{
	{"privacyqa", "PAKTON paper", [7]float64{19.94, 16.84, 11.44, 8.62, 7.38, 6.42, 6.08}, [7]float64{13.34, 22.43, 32.67, 43.39, 61.65, math.NaN(), math.NaN()}},
	{"privacyqa", "LegalBench-RAG Naive", [7]float64{7.86, 7.31, 6.41, 5.06, 3.58, 2.41, 1.54}, [7]float64{7.45, 12.53, 20.88, 32.38, 42.45, math.NaN(), math.NaN()}},
	{"privacyqa", "LegalBench-RAG RCTS", [7]float64{14.38, 13.55, 12.34, 9.03, 6.06, 4.17, 2.81}, [7]float64{8.85, 15.21, 27.92, 42.37, 55.12, math.NaN(), math.NaN()}},
	{"contractnli", "PAKTON paper", [7]float64{33.02, 30.34, 17.33, 9.98, 5.87, 4.68, 4.52}, [7]float64{53.14, 67.47, 80.06, 89.71, 95.50, math.NaN(), math.NaN()}},
	{"contractnli", "LegalBench-RAG Naive", [7]float64{16.45, 14.80, 12.53, 9.73, 6.70, 4.65, 3.04}, [7]float64{11.32, 19.10, 29.79, 45.59, 56.75, math.NaN(), math.NaN()}},
	{"contractnli", "LegalBench-RAG RCTS", [7]float64{6.63, 5.29, 3.89, 2.81, 1.98, 1.29, 0.90}, [7]float64{7.63, 11.33, 17.34, 24.99, 35.80, math.NaN(), math.NaN()}},
	{"maud", "PAKTON paper", [7]float64{25.47, 17.45, 10.51, 7.24, 5.08, 3.18, 1.85}, [7]float64{23.99, 30.09, 34.49, 46.42, 59.74, math.NaN(), math.NaN()}},
	{"maud", "LegalBench-RAG Naive", [7]float64{3.36, 2.65, 2.18, 1.89, 1.48, 1.06, 0.75}, [7]float64{2.54, 3.12, 4.53, 8.75, 13.16, math.NaN(), math.NaN()}},
	{"maud", "LegalBench-RAG RCTS", [7]float64{2.65, 1.77, 1.96, 1.40, 1.39, 1.15, 0.82}, [7]float64{1.65, 2.09, 4.59, 6.18, 12.93, math.NaN(), math.NaN()}},
	{"cuad", "PAKTON paper", [7]float64{11.02, 8.83, 6.81, 4.72, 2.78, 2.07, 1.62}, [7]float64{16.52, 24.76, 33.34, 46.67, 59.53, math.NaN(), math.NaN()}},
	{"cuad", "LegalBench-RAG Naive", [7]float64{9.27, 8.05, 5.98, 4.33, 2.77, 1.77, 1.09}, [7]float64{12.60, 19.47, 27.92, 40.70, 51.02, math.NaN(), math.NaN()}},
	{"cuad", "LegalBench-RAG RCTS", [7]float64{1.97, 4.03, 4.83, 4.20, 2.94, 1.99, 1.25}, [7]float64{1.62, 8.11, 17.72, 31.68, 44.38, math.NaN(), math.NaN()}},
	{"all", "PAKTON paper", [7]float64{22.34, 18.37, 11.52, 7.63, 5.26, 4.08, 3.52}, [7]float64{26.77, 36.32, 45.26, 56.66, 69.17, 83.50, 89.58}},
	{"all", "LegalBench-RAG Naive", [7]float64{2.40, 3.76, 4.97, 4.33, 3.39, 2.17, 1.29}, [7]float64{3.37, 8.44, 21.30, 34.51, 48.88, math.NaN(), math.NaN()}},
	{"all", "LegalBench-RAG RCTS", [7]float64{6.41, 6.16, 5.76, 4.36, 3.09, 2.15, 1.45}, [7]float64{4.94, 9.19, 16.90, 26.30, 37.06, math.NaN(), math.NaN()}},
}

// paperChars are the characters PAKTON's method returns at 1, 8 and 64
// hits, as its paper reports them.
var paperChars = map[string]string{
	"privacyqa": "682 / 5,706 / 21,080", "contractnli": "789 / 4,869 / 11,112", "maud": "908 / 7,069 / 56,523", "cuad": "771 / 7,002 / 35,750",
}

// Table2 renders the four subsets' headline runs in the layout of PAKTON's
// Table 2 — precision and recall at every k, "all" the mean of the four —
// beside the paper's and LegalBench-RAG's rows, then the characters
// returned, DRM and the query latencies of the same runs.
func Table2(n *Numbers) (string, error) {
	subs := make([]Subset, len(table2Keys))
	for i, t := range table2Keys {
		s, ok := n.Subset(t.key)
		if !ok {
			return "", fmt.Errorf("headline numbers: no %q subset", t.key)
		}
		subs[i] = s
	}
	mean := func(get func(Subset) map[string]float64, k string) float64 {
		sum := 0.0
		for _, s := range subs {
			sum += get(s)[k]
		}
		return sum / float64(len(subs))
	}
	cell := func(v float64, bold bool) string {
		if math.IsNaN(v) {
			return "—"
		}
		if bold {
			return fmt.Sprintf("**%.2f**", v)
		}
		return fmt.Sprintf("%.2f", v)
	}
	var b strings.Builder
	b.WriteString("\n| subset | method |")
	for _, k := range ks {
		b.WriteString(" P@" + k + " |")
	}
	for _, k := range ks {
		b.WriteString(" R@" + k + " |")
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", 2*len(ks)) + "\n")
	rows := func(key, name string, p, r func(k string) float64) {
		fmt.Fprintf(&b, "| **%s** | **pakton** |", name)
		for _, k := range ks {
			b.WriteString(" " + cell(p(k), true) + " |")
		}
		for _, k := range ks {
			b.WriteString(" " + cell(r(k), true) + " |")
		}
		b.WriteString("\n")
		for _, o := range others {
			if o.key != key {
				continue
			}
			fmt.Fprintf(&b, "| | %s |", o.method)
			for i := range ks {
				b.WriteString(" " + cell(o.p[i], false) + " |")
			}
			for i := range ks {
				b.WriteString(" " + cell(o.r[i], false) + " |")
			}
			b.WriteString("\n")
		}
	}
	for i, t := range table2Keys {
		s := subs[i]
		rows(t.key, t.name, func(k string) float64 { return s.Precision[k] }, func(k string) float64 { return s.Recall[k] })
	}
	rows("all", "all", func(k string) float64 { return mean(func(s Subset) map[string]float64 { return s.Precision }, k) },
		func(k string) float64 { return mean(func(s Subset) map[string]float64 { return s.Recall }, k) })

	b.WriteString("\n| subset | searched |")
	for i, k := range ks {
		if i == 0 {
			b.WriteString(" chars@" + k + " |")
		} else {
			b.WriteString(" @" + k + " |")
		}
	}
	b.WriteString(" PAKTON paper chars@1 / @8 / @64 | DRM@1 | DRM@8 | DRM@64 | p50 ms | p99 ms |\n")
	b.WriteString("|---|---|" + strings.Repeat("---|", len(ks)+6) + "\n")
	num := func(m map[string]float64, k, format string) string {
		v, ok := m[k]
		if !ok {
			return "—"
		}
		if format == "chars" {
			return thousands(int(math.Round(v)))
		}
		return fmt.Sprintf(format, v)
	}
	ms := func(v float64) string {
		if v == 0 {
			return "—"
		}
		return fmt.Sprintf("%.2f", v)
	}
	for i, t := range table2Keys {
		s := subs[i]
		fmt.Fprintf(&b, "| %s | %s |", t.name, searched(s))
		for _, k := range ks {
			b.WriteString(" " + num(s.Chars, k, "chars") + " |")
		}
		fmt.Fprintf(&b, " %s | %s | %s | %s | %s | %s |\n", paperChars[t.key], num(s.DRM, "1", "%.2f"), num(s.DRM, "8", "%.2f"), num(s.DRM, "64", "%.2f"),
			ms(s.QueryMsP50), ms(s.QueryMsP99))
	}
	b.WriteString("| all | |")
	for _, k := range ks {
		all := true
		for _, s := range subs {
			if _, ok := s.Chars[k]; !ok {
				all = false
			}
		}
		if !all {
			b.WriteString(" — |")
			continue
		}
		b.WriteString(" " + thousands(int(math.Round(mean(func(s Subset) map[string]float64 { return s.Chars }, k)))) + " |")
	}
	b.WriteString(" | | | | | |\n\n")
	b.WriteString(wrap(fmt.Sprintf("Measured on commit %s (%s) by the headline runs above (`go run ./scripts/numbers`); the latencies are in "+
		"process, on the machine and at the load of that run, so upper bounds ([SCALE.md](SCALE.md) has the benchmarks).", n.Commit, n.Measured), 110))
	b.WriteString("\n")
	return b.String(), nil
}

// setsKeys are the rows of the first-hit table.
var setsKeys = []string{"cuad", "cuad-words", "cuad-paraphrased", "cuad-newtypes", "contractnli", "maud", "privacyqa"}

// Sets renders, for every headline run, the characters returned at 1, 8
// and 64 hits and what the first hit is: the answer quoted, from a
// document holding none, the review detectors' passage, under 40
// characters or starting inside a word.
func Sets(n *Numbers) (string, error) {
	var b strings.Builder
	b.WriteString("\n| set (queries) | detectors | chars@1 / @8 / @64 | first hit quotes the answer | first hit from another document | detectors' passage first | first hit under 40 characters / starting inside a word |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	pct := func(v float64, ok bool) string {
		if !ok {
			return "—"
		}
		return fmt.Sprintf("%.1f%%", v)
	}
	for _, key := range setsKeys {
		s, ok := n.Subset(key)
		if !ok {
			continue
		}
		chars := "—"
		if len(s.Chars) > 0 {
			chars = fmt.Sprintf("%s / %s / %s", thousands(int(math.Round(s.Chars["1"]))), thousands(int(math.Round(s.Chars["8"]))), thousands(int(math.Round(s.Chars["64"]))))
		}
		have := len(s.Chars) > 0
		elsewhere := pct(s.FirstElsewhere, have && s.Scope != "document")
		fmt.Fprintf(&b, "| %s (%s) | %s | %s | %s | %s | %s | %s / %s |\n", subsets[key].name, thousands(s.Queries), s.Provisions, chars,
			pct(s.Quotes, have), elsewhere, pct(s.ProvisionTop1, have && s.Provisions != "off (words only)"), pct(s.ShortTop1, have), pct(s.MidTokenTop1, have))
	}
	b.WriteString("\n")
	b.WriteString(wrap(fmt.Sprintf("Measured on commit %s (%s) by the headline runs above.", n.Commit, n.Measured), 110))
	b.WriteString("\n")
	return b.String(), nil
}
