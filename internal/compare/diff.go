package compare

// Myers' O((N+M)·D) difference algorithm ("An O(ND) Difference Algorithm
// and Its Variations", 1986): the shortest edit script between two
// sequences, D being its length. Near-identical sequences — two versions
// of a clause, a parser's text and its source — cost about linear time.

// EditKind says what an edit does.
type EditKind int

// Edit kinds.
const (
	Equal EditKind = iota
	Insert
	Delete
)

// Edit is one run of a difference: A[AStart:AEnd] deleted, B[BStart:BEnd]
// inserted, or the two equal.
type Edit struct {
	Kind         EditKind
	AStart, AEnd int
	BStart, BEnd int
}

// Diff returns the shortest edit script that turns a into b, as runs in
// order (DiffLinear); past maxD steps of work (≤ 0: 2,000,000) it gives the
// coarse script "delete all of a, insert all of b" instead, which is still
// a correct script.
func Diff[T comparable](a, b []T, maxD int) []Edit {
	if maxD <= 0 {
		maxD = 2_000_000
	}
	if es, ok := DiffLinear(a, b, maxD); ok {
		return es
	}
	var out []Edit
	if len(a) > 0 {
		out = append(out, Edit{Kind: Delete, AEnd: len(a)})
	}
	if len(b) > 0 {
		out = append(out, Edit{Kind: Insert, AStart: len(a), AEnd: len(a), BEnd: len(b)})
	}
	return out
}

// DiffLinear returns the shortest edit script that turns a into b, in
// memory linear in the input (Myers' middle-snake bisection, as
// diff-match-patch does it). budget bounds the work (diagonals explored; ≤ 0:
// 50 million); ok is false when it ran out, and the script is then not to
// be used.
func DiffLinear[T comparable](a, b []T, budget int) (es []Edit, ok bool) {
	if budget <= 0 {
		budget = 50_000_000
	}
	d := &bisector[T]{a: a, b: b, budget: budget}
	d.diff(0, len(a), 0, len(b))
	if d.budget < 0 {
		return nil, false
	}
	return d.out, true
}

type bisector[T comparable] struct {
	a, b   []T
	out    []Edit
	budget int
}

func (d *bisector[T]) emit(kind EditKind, a0, a1, b0, b1 int) {
	if a0 == a1 && b0 == b1 {
		return
	}
	if n := len(d.out); n > 0 && d.out[n-1].Kind == kind && d.out[n-1].AEnd == a0 && d.out[n-1].BEnd == b0 {
		d.out[n-1].AEnd, d.out[n-1].BEnd = a1, b1
		return
	}
	d.out = append(d.out, Edit{Kind: kind, AStart: a0, AEnd: a1, BStart: b0, BEnd: b1})
}

// diff appends the script for a[a0:a1] → b[b0:b1].
func (d *bisector[T]) diff(a0, a1, b0, b1 int) {
	if d.budget < 0 {
		return
	}
	// Common prefix and suffix.
	p := 0
	for a0+p < a1 && b0+p < b1 && d.a[a0+p] == d.b[b0+p] {
		p++
	}
	d.emit(Equal, a0, a0+p, b0, b0+p)
	a0, b0 = a0+p, b0+p
	s := 0
	for a1-s > a0 && b1-s > b0 && d.a[a1-s-1] == d.b[b1-s-1] {
		s++
	}
	a1s, b1s := a1-s, b1-s
	switch {
	case a0 == a1s:
		d.emit(Insert, a0, a0, b0, b1s)
	case b0 == b1s:
		d.emit(Delete, a0, a1s, b0, b0)
	default:
		x, y, found := d.bisect(a0, a1s, b0, b1s)
		if !found {
			d.emit(Delete, a0, a1s, b0, b0)
			d.emit(Insert, a1s, a1s, b0, b1s)
		} else {
			d.diff(a0, x, b0, y)
			d.diff(x, a1s, y, b1s)
		}
	}
	d.emit(Equal, a1s, a1, b1s, b1)
}

// bisect finds the middle snake of a[a0:a1] and b[b0:b1] and returns the
// point to split at.
func (d *bisector[T]) bisect(a0, a1, b0, b1 int) (int, int, bool) {
	n, m := a1-a0, b1-b0
	maxD := (n + m + 1) / 2
	off := maxD
	size := 2*maxD + 2
	v1 := make([]int, size)
	v2 := make([]int, size)
	for i := range v1 {
		v1[i], v2[i] = -1, -1
	}
	v1[off+1], v2[off+1] = 0, 0
	delta := n - m
	front := delta%2 != 0
	k1start, k1end, k2start, k2end := 0, 0, 0, 0
	for D := 0; D < maxD; D++ {
		d.budget -= 2*D + 1
		if d.budget < 0 {
			return 0, 0, false
		}
		for k1 := -D + k1start; k1 <= D-k1end; k1 += 2 {
			i := off + k1
			x1 := furthest(v1, i, k1, D)
			y1 := x1 - k1
			for x1 < n && y1 < m && d.a[a0+x1] == d.b[b0+y1] {
				x1++
				y1++
			}
			v1[i] = x1
			switch {
			case x1 > n:
				k1end += 2
			case y1 > m:
				k1start += 2
			case front:
				j := off + delta - k1
				if j >= 0 && j < size && v2[j] != -1 && x1 >= n-v2[j] {
					return a0 + x1, b0 + y1, true
				}
			}
		}
		for k2 := -D + k2start; k2 <= D-k2end; k2 += 2 {
			i := off + k2
			x2 := furthest(v2, i, k2, D)
			y2 := x2 - k2
			for x2 < n && y2 < m && d.a[a0+n-x2-1] == d.b[b0+m-y2-1] {
				x2++
				y2++
			}
			v2[i] = x2
			switch {
			case x2 > n:
				k2end += 2
			case y2 > m:
				k2start += 2
			case !front:
				j := off + delta - k2
				if j >= 0 && j < size && v1[j] != -1 {
					x1 := v1[j]
					y1 := off + x1 - j
					if x1 >= n-x2 {
						return a0 + x1, b0 + y1, true
					}
				}
			}
		}
	}
	return 0, 0, false
}

// furthest is where the path of D edits on diagonal k starts, before its
// snake: one step down from diagonal k+1 or right from diagonal k-1,
// whichever of the two reached further (v[i] is diagonal k's x).
func furthest(v []int, i, k, D int) int {
	if k == -D || k != D && v[i-1] < v[i+1] {
		return v[i+1]
	}
	return v[i-1] + 1
}
