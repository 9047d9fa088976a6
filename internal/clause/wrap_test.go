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
			name: "list announced at the end of the line before",
			text: `
		1. SPONSORSHIP. The Sponsor receives:
		(1) the Health Channel home page; and
		(2) eight content features. The Sponsor may select the features set forth below:
		(1) Weight Loss Tips
		(2) Calorie Calculator
		2. FEES. The Sponsor pays monthly.
		`,
			want: `
		section 1 [SPONSORSHIP]
		  item (1)
		  item (2)
		    item (1) [Weight Loss Tips]
		    item (2) [Calorie Calculator]
		section 2 [FEES]
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
			name: "item whose first words are its first sub-item",
			text: `
		1. SELLER'S DUTIES. The Seller agrees: (1) to hold the Cards in trust; (2) to sell the Cards as instructed. (3) (A) to be responsible for any loss of Cards. (B) to keep records of every sale.
		2. NOTICES. In writing.
		`,
			want: `
		section 1 [SELLER'S DUTIES]
		  item (1)
		  item (2)
		  item (3)
		    item (A)
		    item (B)
		section 2 [NOTICES]
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
