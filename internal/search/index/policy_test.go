package index

import (
	"fmt"
	"slices"
	"testing"
)

// TestMergePolicyPick: Factor adjacent segments of a level merge, the
// lowest level first; a window one segment dominates (more than half its
// units) is left alone, so adding a small segment to a large one and a few
// small ones does not rewrite the large one; a segment with too many deleted
// documents is rewritten alone.
func TestMergePolicyPick(t *testing.T) {
	p := DefaultMergePolicy
	commit := func(units ...int) Commit {
		var c Commit
		for i, u := range units {
			c.Segments = append(c.Segments, CommitSegment{Name: fmt.Sprint("s", i), Docs: 10, Units: u})
		}
		return c
	}
	names := func(from, to int) []string {
		var out []string
		for i := from; i < to; i++ {
			out = append(out, fmt.Sprint("s", i))
		}
		return out
	}
	big, small := 900_000, 90_000
	for _, tc := range []struct {
		what  string
		c     Commit
		merge []string
	}{
		{"seven segments", commit(small, small, small, small, small, small, small), nil},
		{"eight of one level", commit(small, small, small, small, small, small, small, small), names(0, 8)},
		{"a large one and seven small ones", commit(big, small, small, small, small, small, small, small), nil},
		{"a large one and eight small ones", commit(big, small, small, small, small, small, small, small, small), names(1, 9)},
		{"eight of a higher level", commit(400_000, 400_000, 400_000, 400_000, 400_000, 400_000, 400_000, 400_000), names(0, 8)},
		{"too large to merge", commit(1<<20, 1<<20, 1<<20, 1<<20, 1<<20, 1<<20, 1<<20, 1<<20), nil},
	} {
		if got := p.Pick(tc.c); !slices.Equal(got, tc.merge) {
			t.Errorf("%s: Pick = %v, want %v", tc.what, got, tc.merge)
		}
	}
	c := commit(big, small)
	c.Segments[1].Deleted = []int32{0, 1, 2}
	if got := p.Pick(c); !slices.Equal(got, []string{"s1"}) {
		t.Errorf("a segment with 30%% deleted: Pick = %v, want it alone", got)
	}
}
