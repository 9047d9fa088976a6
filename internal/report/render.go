package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pakton/pakton/internal/document"
)

// Section headings, in the order a report shows them.
const (
	HeadSummary   = "Summary of Topic"
	HeadReasoning = "Legal Reasoning & Analysis"
	HeadAnswer    = "Preliminary Answer & Direction for Further Research"
	HeadGaps      = "Gaps & Next Questions"
	HeadSources   = "Sources"
)

// WriteJSON writes r as indented JSON. Field names are stable; empty lists
// are written as [] rather than null.
func WriteJSON(w io.Writer, r *Report) error {
	c := *r
	c.Sources = fillSources(c.Sources)
	c.Removed = fillSources(c.Removed)
	if c.Documents == nil {
		c.Documents = []DocRef{}
	}
	if c.Turns == nil {
		c.Turns = []Turn{}
	}
	for i := range c.Turns {
		if c.Turns[i].Tools == nil {
			c.Turns[i].Tools = []string{}
		}
	}
	if c.Flags == nil {
		c.Flags = []string{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(&c)
}

func fillSources(in []Source) []Source {
	out := make([]Source, len(in))
	copy(out, in)
	for i := range out {
		if out[i].Pages == nil {
			out[i].Pages = []int{}
		}
	}
	return out
}

// WriteMarkdown writes r as Markdown for a terminal or a file.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	title := r.Title
	if title == "" {
		title = "Report"
	}
	fmt.Fprintf(&b, "# %s\n\n", oneLine(title))
	if !r.Complete {
		b.WriteString("**Incomplete report:** ")
		switch r.StopReason {
		case "cancelled":
			b.WriteString("the run was cancelled; this is the best draft so far.\n\n")
		default:
			b.WriteString("the run stopped early; this is the best draft so far.\n\n")
		}
	}
	if r.Notice != "" {
		fmt.Fprintf(&b, "> %s\n\n", oneLine(r.Notice))
	}
	fmt.Fprintf(&b, "**Question:** %s\n", oneLine(r.Question))
	if r.Context != "" {
		fmt.Fprintf(&b, "**Context:** %s\n", oneLine(r.Context))
	}
	if r.Instructions != "" {
		fmt.Fprintf(&b, "**Instructions:** %s\n", oneLine(r.Instructions))
	}
	if len(r.Documents) > 0 {
		names := make([]string, len(r.Documents))
		for i, d := range r.Documents {
			names[i] = Label(d.Title, d.Name)
		}
		fmt.Fprintf(&b, "**Documents:** %s\n", strings.Join(names, ", "))
	}
	b.WriteString("\n")

	sections := []struct{ head, body string }{
		{HeadSummary, r.Summary}, {HeadReasoning, r.Reasoning}, {HeadAnswer, r.Answer}, {HeadGaps, r.Gaps},
	}
	for _, s := range sections {
		if r.Mode == ModeEvidence && strings.TrimSpace(s.body) == "" {
			continue
		}
		body := strings.TrimSpace(s.body)
		if body == "" {
			body = "—"
		}
		fmt.Fprintf(&b, "## %s\n\n%s\n\n", s.head, body)
	}

	if len(r.Checks) > 0 {
		b.WriteString("## Provision check\n\n")
		for _, c := range r.Checks {
			if c.Found {
				where := ""
				if c.Path != "" {
					where = " at " + c.Path
				}
				fmt.Fprintf(&b, "- **%s** — found in %s%s (confidence %.2f, %s).\n", oneLine(c.Provision), oneLine(Label(c.DocTitle, c.DocName)), where, c.Confidence, c.Method)
			} else {
				fmt.Fprintf(&b, "- **%s** — **not found** in %s (confidence it is there after all: %.2f, %s).\n", oneLine(c.Provision), oneLine(Label(c.DocTitle, c.DocName)), c.Confidence, c.Method)
			}
		}
		b.WriteString("\n")
	}

	writeContracts(&b, r)

	head := HeadSources
	if r.Mode == ModeEvidence {
		head = "Provisions"
	}
	fmt.Fprintf(&b, "## %s\n\n", head)
	if len(r.Sources) == 0 {
		b.WriteString("None.\n\n")
	}
	for _, s := range r.Sources {
		writeSource(&b, s)
	}
	if len(r.Removed) > 0 {
		b.WriteString("### Removed quotations\n\nThese quotations do not occur in the document they name; the claims citing them are marked unverified.\n\n")
		for _, s := range r.Removed {
			writeSource(&b, s)
		}
	}

	if len(r.Turns) > 0 {
		b.WriteString("## Interrogation\n\n")
		for _, t := range r.Turns {
			tools := "no tools"
			if len(t.Tools) > 0 {
				tools = strings.Join(t.Tools, ", ")
			}
			fmt.Fprintf(&b, "%d. %s — %s; %s\n", t.N, oneLine(t.Question), tools, plural(t.Found, "passage"))
			for _, e := range t.Errors {
				fmt.Fprintf(&b, "   - tool error: %s\n", oneLine(e))
			}
		}
		b.WriteString("\n")
	}

	v := r.Verification
	if v.Quotes > 0 || v.Dangling > 0 || r.Mode == ModeAgents {
		b.WriteString("## Verification\n\n")
		if v.Quotes == 0 {
			b.WriteString("No quotation from the documents supports this report: none of its statements is verified.")
		} else {
			fmt.Fprintf(&b, "%s checked against the documents: %d verified in place, %d re-cited, %d removed; %s verbatim.",
				plural(v.Quotes, "quotation"), v.Verified, v.Recited, v.Removed, percent(v.Rate))
		}
		if v.Dangling > 0 {
			fmt.Fprintf(&b, " %s named no source.", plural(v.Dangling, "citation"))
		}
		b.WriteString("\n\n")
	}
	if len(r.Flags) > 0 {
		b.WriteString("## Flags\n\n")
		for _, f := range r.Flags {
			fmt.Fprintf(&b, "- %s\n", oneLine(f))
		}
		b.WriteString("\n")
	}
	if a := r.Accounting; a != nil {
		fmt.Fprintf(&b, "## Model use\n\n%s (%s): %d prompt + %d completion tokens, %.1f s",
			plural(a.Calls, "model call"), strings.Join(a.Models, ", "), a.PromptTokens, a.CompletionTokens, float64(a.WallMS)/1000)
		if a.PaperCalls > 0 {
			fmt.Fprintf(&b, "; the paper's cost model predicts %d calls for these turns", a.PaperCalls)
		}
		b.WriteString(".\n")
		for _, s := range a.Steps {
			fmt.Fprintf(&b, "- %s: %s, %d + %d tokens\n", s.Step, plural(s.Calls, "call"), s.PromptTokens, s.CompletionTokens)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

func writeSource(b *strings.Builder, s Source) {
	var loc []string
	switch {
	case s.DocName != "":
		loc = append(loc, Label(s.DocTitle, s.DocName))
	case s.DocID != "":
		loc = append(loc, s.DocID)
	}
	if s.Path != "" {
		loc = append(loc, s.Path)
	}
	if p := document.FormatPages(s.Pages, s.PageLabels); p != "" {
		loc = append(loc, p)
	}
	if s.Status != StatusExternal {
		loc = append(loc, "chars "+s.Span.String())
	}
	if s.Tool != "" && s.Status == StatusExternal {
		loc = append(loc, "via "+s.Tool)
	}
	if s.URL != "" {
		loc = append(loc, s.URL)
	}
	fmt.Fprintf(b, "[%d] %s — %s\n", s.N, strings.Join(loc, " — "), s.Status)
	if s.Note != "" && s.Status != StatusVerified {
		fmt.Fprintf(b, "    (%s)\n", s.Note)
	}
	for _, line := range strings.Split(strings.TrimSpace(s.Quote), "\n") {
		fmt.Fprintf(b, "> %s\n", strings.TrimRight(line, " \t\r"))
	}
	if len(s.Highlights) > 0 {
		b.WriteString("\nBest-matching sentences:\n")
		for _, h := range s.Highlights {
			fmt.Fprintf(b, "- %s %s\n", oneLine(h.Text), h.Span)
		}
	}
	if len(s.LeansOn) > 0 {
		b.WriteString("\nLeans on:\n")
		for _, l := range s.LeansOn {
			what := "definition of “" + l.Label + "”"
			if l.Kind != "definition" {
				what = l.Label
			}
			switch {
			case l.Span != nil:
				fmt.Fprintf(b, "- %s — %s %s: %s\n", what, l.Path, *l.Span, clip(oneLine(l.Text), 240))
			default:
				fmt.Fprintf(b, "- %s — %s\n", what, l.Note)
			}
		}
	}
	b.WriteString("\n")
}

// clip cuts s to about n characters at a word boundary, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n])
	if k := strings.LastIndexByte(cut, ' '); k > n/2 {
		cut = cut[:k]
	}
	return cut + " …"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

func percent(f float64) string { return strconv.FormatFloat(100*f, 'f', 1, 64) + "%" }

// writeContracts renders a per-contract answer as a table: one row per
// contract that has what the question asks about, its answer and the
// clause it was read from; then the contracts not listed, counted.
func writeContracts(b *strings.Builder, r *Report) {
	dr := r.DealRoom
	if dr == nil {
		return
	}
	b.WriteString("## Per contract\n\n")
	if len(r.Contracts) == 0 {
		b.WriteString("No contract has it.\n\n")
	} else {
		if dr.Ask != "" {
			// the value asked for gets its own column ("notice")
			fmt.Fprintf(b, "| contract | answer | %s | clause | page |\n|---|---|---|---|---|\n", cellText(dr.Ask))
		} else {
			b.WriteString("| contract | answer | clause | page |\n|---|---|---|---|\n")
		}
		for _, c := range r.Contracts {
			answer := c.Answer
			if c.Condition != "" {
				answer += " — " + clip(oneLine(c.Condition), 120)
			}
			if dr.Method == "search" {
				answer = "(a passage matching the question's words)"
			}
			clause, page := "", ""
			if len(c.Citations) > 0 {
				clause = c.Citations[0].Path
				if len(c.Citations[0].Pages) > 0 {
					page = strconv.Itoa(c.Citations[0].Pages[0])
				}
			}
			if dr.Ask != "" {
				asked := c.Asked
				switch {
				case asked == "":
					asked = "not stated"
				case c.AskedFrom != "":
					asked += " (" + c.AskedFrom + ")"
				}
				fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", cellText(Label(c.DocTitle, c.Name)), cellText(answer), cellText(asked), cellText(clause), page)
				continue
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", cellText(Label(c.DocTitle, c.Name)), cellText(answer), cellText(clause), page)
		}
		b.WriteString("\n")
	}
	var counts []string
	if dr.NotMatching > 0 {
		verb := "have"
		if dr.NotMatching == 1 {
			verb = "has"
		}
		counts = append(counts, fmt.Sprintf("%s %s it, but not as the question asks (%s)", plural(dr.NotMatching, "contract"), verb, dr.Condition))
	}
	if dr.Lacking > 0 {
		counts = append(counts, fmt.Sprintf("%s checked and found to lack it", plural(dr.Lacking, "contract")))
	}
	if dr.Undecided > 0 {
		counts = append(counts, fmt.Sprintf("%s could not be decided", plural(dr.Undecided, "contract")))
	}
	fmt.Fprintf(b, "%s checked", plural(dr.Checked, "contract"))
	if len(counts) > 0 {
		b.WriteString("; " + strings.Join(counts, "; "))
	}
	b.WriteString(".\n\n")
	// The contracts not in the table, each by name: a lawyer needs to know
	// which ones lack it, not only how many.
	for _, o := range dr.Others {
		line := "- " + oneLine(Label(o.DocTitle, o.Name)) + " — " + statusWords(o.Status)
		if o.Value != "" {
			line += ": " + clip(oneLine(o.Value), 80)
		}
		if o.Why != "" {
			line += " (" + clip(oneLine(o.Why), 160) + ")"
		}
		b.WriteString(line + "\n")
	}
	if len(dr.Others) > 0 {
		b.WriteString("\n")
	}
}

// statusWords says a per-contract status in words.
func statusWords(status string) string {
	switch status {
	case "lacks":
		return "lacks it"
	case "not_matching":
		return "has it, not as the question asks"
	case "undecided":
		return "could not be decided"
	}
	return status
}

// cellText makes text safe inside a Markdown table cell.
func cellText(s string) string {
	return strings.ReplaceAll(oneLine(s), "|", "\\|")
}
