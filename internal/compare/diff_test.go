package compare

import (
	"math/rand"
	"testing"
)

// apply rebuilds b from a and the script, checking the script's shape.
func apply(t *testing.T, a, b []rune, es []Edit) string {
	t.Helper()
	var out []rune
	ai, bi := 0, 0
	for _, e := range es {
		if e.AStart != ai || e.BStart != bi {
			t.Fatalf("edit %+v does not continue at a=%d b=%d", e, ai, bi)
		}
		switch e.Kind {
		case Equal:
			if string(a[e.AStart:e.AEnd]) != string(b[e.BStart:e.BEnd]) {
				t.Fatalf("equal run differs: %+v", e)
			}
			out = append(out, b[e.BStart:e.BEnd]...)
		case Insert:
			out = append(out, b[e.BStart:e.BEnd]...)
		}
		ai, bi = e.AEnd, e.BEnd
	}
	if ai != len(a) || bi != len(b) {
		t.Fatalf("script ends at a=%d b=%d of %d, %d", ai, bi, len(a), len(b))
	}
	return string(out)
}

func TestDiff(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, tc := range [][2]string{{"", ""}, {"abc", ""}, {"", "abc"}, {"abcabba", "cbabac"}, {"the cat sat", "the bat sat down"}} {
		a, b := []rune(tc[0]), []rune(tc[1])
		es := Diff(a, b, 0)
		if got := apply(t, a, b, es); got != tc[1] {
			t.Errorf("%q → %q rebuilt %q", tc[0], tc[1], got)
		}
		d := 0
		for _, e := range es {
			d += (e.AEnd - e.AStart) + (e.BEnd - e.BStart)
			if e.Kind == Equal {
				d -= 2 * (e.AEnd - e.AStart)
			}
		}
		if want := lcsDistance(a, b); d != want {
			t.Errorf("%q → %q: script has %d edits, the shortest %d", tc[0], tc[1], d, want)
		}
	}
	if d := lcsDistance([]rune("abcabba"), []rune("cbabac")); d != 5 {
		t.Errorf("Myers' example: D=%d, want 5", d)
	}
	for i := 0; i < 200; i++ {
		a := []rune(randText(rng, rng.Intn(60)))
		b := []rune(randText(rng, rng.Intn(60)))
		apply(t, a, b, Diff(a, b, 0))
	}
	// Past maxD the script is coarse but still right.
	a, b := []rune(randText(rng, 300)), []rune(randText(rng, 300))
	if es := Diff(a, b, 10); len(es) != 2 || apply(t, a, b, es) != string(b) {
		t.Errorf("coarse script %+v", es)
	}
}

func randText(rng *rand.Rand, n int) string {
	b := make([]rune, n)
	for i := range b {
		b[i] = rune('a' + rng.Intn(3))
	}
	return string(b)
}

func TestDiffLinear(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 500; i++ {
		a := []rune(randText(rng, rng.Intn(80)))
		b := []rune(randText(rng, rng.Intn(80)))
		es, ok := DiffLinear(a, b, 0)
		if !ok {
			t.Fatal("budget exhausted on a small input")
		}
		if got := apply(t, a, b, es); got != string(b) {
			t.Fatalf("rebuilt %q, want %q", got, string(b))
		}
		d := 0
		for _, e := range es {
			if e.Kind != Equal {
				d += (e.AEnd - e.AStart) + (e.BEnd - e.BStart)
			}
		}
		if want := lcsDistance(a, b); d != want {
			t.Fatalf("%q → %q: %d edits, the shortest has %d", string(a), string(b), d, want)
		}
	}
	if _, ok := DiffLinear([]rune(randText(rng, 1000)), []rune(randText(rng, 1000)), 100); ok {
		t.Error("a tiny budget was not exhausted")
	}
}

// lcsDistance is the number of insertions and deletions of the shortest
// edit script, from the textbook O(n·m) longest-common-subsequence table:
// an oracle independent of Myers' algorithm.
func lcsDistance(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return len(a) + len(b) - 2*prev[len(b)]
}
