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
