package clause

import (
	"strings"
	"testing"
)

// Text that keeps a page's lines, as a PDF's does, and text that runs a
// heading's line into the clause after it give the tree a reader sees: a
// line break is not structure, and a wrapped reference is not a heading.
func TestWrappedLines(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{
			name: "item after a line-wrapped semicolon and",
			text: `
		1. INDEMNITY. The obligations are contingent upon: (i) prompt written notice of the claim; (ii) sole control of the defense;
		and (iii) reasonable cooperation at the indemnitor's expense.
		2. TERM. This Agreement runs for one year.
		`,
			want: `
		section 1 [INDEMNITY]
		  item (i)
		  item (ii)
		  item (iii)
		section 2 [TERM]
		`,
		},
		{
			name: "first clause after its section's heading on one line",
			text: "RESELLER AGREEMENT This Agreement is made by Galaxy and Telnet.\n" +
				"1. RESELLER OBLIGATIONS 1.1 Marketing and Sales Telnet shall promote the products. 1.2 Business Expenses Telnet shall bear its own expenses.\n" +
				"2. Conduct of the Business 2.1 LEA shall provide the services. 2.2 T&B shall assist.\n",
			want: `
		preamble
		section 1 [RESELLER OBLIGATIONS]
		  clause 1.1
		  clause 1.2
		section 2 [Conduct of the Business]
		  clause 2.1
		  clause 2.2
		`,
		},
		{
			name: "a heading that is a unit of time",
			text: `
		1. Place of Work 1.1 The Executive works from home. 1.2 The Executive shall travel as required.
		2. Hours of Work 2.1 The Executive shall work the hours the duties require.
		3. Salary 3.1 The Executive is paid monthly.
		`,
			want: `
		section 1 [Place of Work]
		  clause 1.1
		  clause 1.2
		section 2 [Hours of Work]
		  clause 2.1
		section 3 [Salary]
		  clause 3.1
		`,
		},
		{
			name: "references wrapped to a line start",
			text: `
		1. TERMINATION
		1.1 Term. This Agreement runs for one year.
		1.2 Effect. Upon termination other than for breach pursuant to
		Section 1.1 ("Term"), the Customer may use the software for ninety days.
		The Destruction Certificate is attached to the Agreement as Exhibit
		1.C, and destruction fees shall apply.
		1.3 Survival. The confidentiality obligations survive.
		2. DEFINITIONS
		"Scope" means the limitations on the use of the Application set forth in
		Exhibit A.
		"Territory" means the United States.
		`,
			want: `
		section 1 [TERMINATION]
		  clause 1.1 [Term]
		  clause 1.2 [Effect]
		  clause 1.3 [Survival]
		section 2 [DEFINITIONS]
		  definition {Scope}
		  definition {Territory}
		`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, tr := parseText(t, dedent(tc.text))
			got := outline(tr)
			want := strings.TrimPrefix(dedent(tc.want), "\n")
			if strings.TrimSpace(got) != strings.TrimSpace(want) {
				t.Errorf("outline mismatch\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
}
