package document

import "testing"

func TestPagesLabel(t *testing.T) {
	for _, tc := range []struct {
		pages []int
		want  string
	}{
		{nil, ""},
		{[]int{}, ""},
		{[]int{3}, "p. 3 (PDF page)"},
		{[]int{3, 4}, "pp. 3–4 (PDF pages)"},
		{[]int{3, 4, 5}, "pp. 3–5 (PDF pages)"},
	} {
		if got := PagesLabel(tc.pages); got != tc.want {
			t.Errorf("PagesLabel(%v) = %q, want %q", tc.pages, got, tc.want)
		}
	}
}
