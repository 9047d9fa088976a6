package usecase

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/review/deadline"
)

// quoteRunes is the most characters of a clause's quote a text list shows.
const quoteRunes = 160

// WriteText writes the list as text (`pakton deadlines`, the MCP
// list_deadlines tool): the dated deadlines by date, each with how it was
// computed and its clauses, then those not computed with why, then the
// contracts not read. within, when set, is the span the list was cut to.
func (list *DeadlineList) WriteText(w io.Writer, within string) {
	scope := ""
	if within != "" {
		scope = " within " + within
	}
	fmt.Fprintf(w, "Deadlines of collection %q%s as of %s (%d contracts read)\n\n", list.Collection, scope, list.AsOf, list.Contracts)
	var undated []deadline.Deadline
	n := 0
	for _, d := range list.Deadlines {
		if !d.Dated() {
			undated = append(undated, d)
			continue
		}
		n++
		when := d.Date
		if d.Start != "" {
			when = d.Start + " to " + d.Date
		}
		past := ""
		if d.Date < list.AsOf {
			past = " (past)"
		}
		fmt.Fprintf(w, "%-10s  %s%s\n", when, d.Label, past)
		fmt.Fprintf(w, "            %s\n", contractLabel(d))
		if d.How != "" {
			fmt.Fprintf(w, "            %s\n", d.How)
		}
		for _, c := range d.Clauses {
			fmt.Fprintf(w, "            %s\n", clauseLine(c))
		}
		fmt.Fprintln(w)
	}
	if n == 0 {
		fmt.Fprintf(w, "No dated deadlines%s.\n", scope)
	}
	if len(undated) > 0 {
		fmt.Fprintf(w, "\nCould not be computed (%d):\n", len(undated))
		for _, d := range undated {
			fmt.Fprintf(w, "  %s — %s: %s\n", contractLabel(d), d.Label, d.Why)
			for _, c := range d.Clauses {
				fmt.Fprintf(w, "      %s\n", clauseLine(c))
			}
		}
	}
	for _, u := range list.Unreadable {
		fmt.Fprintf(w, "\nnot read: %s: %s\n", u.DocName, u.Error)
	}
}

func contractLabel(d deadline.Deadline) string {
	if d.Title != "" && d.Title != d.DocName {
		return d.Title + " (" + d.DocName + ")"
	}
	return d.DocName
}

func clauseLine(c deadline.Clause) string {
	where := c.Provision
	if c.Path != "" {
		where += ", " + c.Path
	}
	if len(c.Pages) > 0 {
		where += ", p. " + strconv.Itoa(c.Pages[0])
	}
	q := c.Quote
	if utf8.RuneCountInString(q) > quoteRunes {
		q = string([]rune(q)[:quoteRunes]) // cut at a word where there is one
		if i := strings.LastIndex(q, " "); i > 0 {
			q = q[:i]
		}
		q = strings.TrimSpace(q) + " …"
	}
	return fmt.Sprintf("%s: “%s”", where, q)
}
