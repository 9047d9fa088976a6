package document

import (
	"math/rand"
	"slices"
	"testing"
	"unicode/utf8"
)

// TestIndexMatchesNaiveConversion compares the sparse index with a plain
// rune slice on random mixed-width text, at every offset.
func TestIndexMatchesNaiveConversion(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alphabet := []rune("ab c\n€é—𝄞ü")
	for iter := 0; iter < 100; iter++ {
		n := rng.Intn(700)
		rs := make([]rune, n)
		for i := range rs {
			rs[i] = alphabet[rng.Intn(len(alphabet))]
			if iter%2 == 1 && rng.Intn(40) > 0 {
				// mostly ASCII, as contracts are: long ASCII runs
				rs[i] = alphabet[rng.Intn(4)]
			}
		}
		s := string(rs)
		ix := NewIndex(s)
		if ix.Len() != n {
			t.Fatalf("Len %d, want %d", ix.Len(), n)
		}
		b := 0
		for r := 0; r <= n; r++ {
			if got := ix.Byte(r); got != b {
				t.Fatalf("Byte(%d) = %d, want %d", r, got, b)
			}
			if got := ix.Rune(b); got != r {
				t.Fatalf("Rune(%d) = %d, want %d", b, got, r)
			}
			if r < n {
				b += utf8.RuneLen(rs[r])
			}
		}
		for k := 0; k < 20; k++ {
			a := rng.Intn(n + 1)
			e := a + rng.Intn(n-a+1)
			if got, want := ix.Slice(Span{a, e}), string(rs[a:e]); got != want {
				t.Fatalf("Slice(%d,%d) = %q, want %q", a, e, got, want)
			}
		}
	}
}

func TestIndexClampsAndInsideRune(t *testing.T) {
	ix := NewIndex("a€b")
	if ix.Byte(-3) != 0 || ix.Byte(99) != 5 {
		t.Fatal("Byte does not clamp")
	}
	// Byte 2 is inside "€" (bytes 1..3): it belongs to code point 1.
	if got := ix.Rune(2); got != 1 {
		t.Fatalf("Rune(2) = %d, want 1", got)
	}
	if got := ix.Slice(Span{2, 1}); got != "" {
		t.Fatalf("inverted span sliced to %q", got)
	}
}

func TestSpanOps(t *testing.T) {
	a, b := Span{0, 10}, Span{5, 15}
	if !a.Overlaps(b) || a.Overlaps(Span{10, 12}) {
		t.Error("Overlaps")
	}
	if a.Intersect(b) != (Span{5, 10}) || a.Intersect(Span{20, 30}).Len() != 0 {
		t.Error("Intersect")
	}
	if !a.Contains(Span{2, 3}) || a.Contains(b) {
		t.Error("Contains")
	}
}

func TestPagesOf(t *testing.T) {
	d := &Document{Text: "page one\n\npage two\n\npage three", Pages: []Page{{Number: 1, Span: Span{0, 10}}, {Number: 2, Span: Span{10, 20}}, {Number: 3, Span: Span{20, 30}}}}
	got := d.PagesOf(Span{8, 12})
	if len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("PagesOf = %v", got)
	}
	if got := d.PagesOf(Span{25, 25}); len(got) != 1 || got[0] != 3 {
		t.Fatalf("PagesOf(empty span) = %v", got)
	}
}

// TestIndexLikeRuneByRune compares the index with one built a code point at
// a time (utf8.DecodeRuneInString), on text of long ASCII runs with invalid
// bytes and multi-byte code points among them.
func TestIndexLikeRuneByRune(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	pieces := []string{"a", "b c", "\n", "€", "—", "\xff", "\xe2\x82", "𝄞", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}
	for iter := 0; iter < 200; iter++ {
		var b []byte
		for range rng.Intn(300) {
			p := pieces[rng.Intn(len(pieces))]
			if rng.Intn(4) > 0 {
				p = pieces[len(pieces)-1]
			}
			b = append(b, p...)
		}
		s := string(b)
		var want []int32
		i, at := 0, 0
		for at < len(s) {
			if i%stride == 0 {
				want = append(want, int32(at))
			}
			_, w := utf8.DecodeRuneInString(s[at:])
			at += w
			i++
		}
		ix := NewIndex(s)
		if ix.Len() != i || ix.ascii != (i == len(s)) {
			t.Fatalf("Len %d (ascii %v), want %d", ix.Len(), ix.ascii, i)
		}
		if !ix.ascii && !slices.Equal(ix.checks, want) {
			t.Fatalf("checks %v, want %v", ix.checks, want)
		}
	}
}
