package clause

import (
	"strings"
	"testing"
)

// Text that keeps a page's lines, as a PDF's does, gives the tree a reader
// sees: a reference that a line wrap left at a line start is not a heading.
func TestWrappedLines(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
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
		{
			name: "an item after a conjunction that a line wrap put at a line start",
			text: `
		1. COVENANTS
		1.1 Conduct. The Company has not (i) sold any securities;
		(ii) paid any dividend other than in the ordinary course of business; (iii) entered into a consulting agreement;
		and (iv) engaged any intermediary in connection with the offering, and no person is compensated for it.
		1.2 Remedies. The Agent may (a) terminate this Agreement, (b) recover its expenses,
		    or (c) seek any other remedy available to it.
		1.3 Notices. Notices are in writing.
		`,
			want: `
		section 1 [COVENANTS]
		  clause 1.1 [Conduct]
		    item (i)
		    item (ii)
		    item (iii)
		    item (iv)
		  clause 1.2 [Remedies]
		    item (a)
		    item (b)
		    item (c)
		  clause 1.3 [Notices]
		`,
		},
		{
			name: "articles named in a sentence a line wrap left open at a comma",
			text: `
		ARTICLE 7 TERM
		7.1 Term. This Agreement runs for five years.
		7.2 Survival. Expiration shall not affect the obligations of the Parties pursuant to ARTICLE 1
		(Interpretation), ARTICLE 9 (Remedies) (provided that the insurance survives for the period therein),
		ARTICLE 10 (Confidentiality) and Section 4.4 (Taxes), which survive.
		ARTICLE 8 WARRANTIES
		8.1 Authority. Each Party has the right to enter into this Agreement.
		`,
			want: `
		article ARTICLE 7 [TERM]
		  clause 7.1 [Term]
		  clause 7.2 [Survival]
		article ARTICLE 8 [WARRANTIES]
		  clause 8.1 [Authority]
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
