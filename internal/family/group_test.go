package family

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// groupReference is Group as first written: every pair met in a band is
// looked up in a set of the pairs judged. Group must answer exactly as it
// does.
func groupReference(members []Member, o Options) ([][]int, []Pair) {
	n := len(members)
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	checked := map[[2]int]bool{}
	var pairs []Pair
	consider := func(i, j int) {
		if i > j {
			i, j = j, i
		}
		key := [2]int{i, j}
		if checked[key] {
			return
		}
		checked[key] = true
		if p, ok := o.Same(members[i], members[j]); ok {
			p.A, p.B = i, j
			pairs = append(pairs, p)
			if a, b := find(i), find(j); a != b {
				parent[a] = b
			}
		}
	}
	for _, r := range []int{4, 2} {
		for band := 0; band+r <= K; band += r {
			buckets := map[uint64][]int{}
			for i, m := range members {
				if m.Sig.Shingles == 0 {
					continue
				}
				var h uint64 = uint64(band)
				for _, v := range m.Sig.Mins[band : band+r] {
					h = mix(h ^ v)
				}
				buckets[h] = append(buckets[h], i)
			}
			for _, b := range buckets {
				if len(b) > 64 {
					b = b[:64]
				}
				for x := 0; x < len(b); x++ {
					for y := x + 1; y < len(b); y++ {
						consider(b[x], b[y])
					}
				}
			}
		}
	}
	groups := map[int][]int{}
	for i := range members {
		groups[find(i)] = append(groups[find(i)], i)
	}
	var out [][]int
	for _, g := range groups {
		if len(g) > 1 {
			sort.Ints(g)
			out = append(out, g)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return out[i][0] < out[j][0]
	})
	sort.Slice(pairs, func(i, j int) bool {
		return pairs[i].A < pairs[j].A || pairs[i].A == pairs[j].A && pairs[i].B < pairs[j].B
	})
	return out, pairs
}

// estate is a collection as a firm's is: templates each signed with many
// counterparties (near-copies that are different contracts), some signed
// copies in several versions (one contract), and buckets fuller than
// maxBucket.
func estate(templates, copies int) []Member {
	var out []Member
	for t := range templates {
		base := contract([2]string{fmt.Sprintf("Orion%d Analytics Ltd", t), "Vega Robotics Inc"}, 25+t, fmt.Sprintf("Template %d.\n", t))
		for c := range copies {
			text := base
			if c%3 != 0 { // another counterparty: a different contract
				text = strings.ReplaceAll(base, "Vega", fmt.Sprintf("Zed%dq%d", t, c))
			}
			if c%4 == 1 { // a version of it: one clause edited
				text = strings.Replace(text, "within 13 days", fmt.Sprintf("within %d days", 40+c), 1)
			}
			out = append(out, Member{ID: fmt.Sprintf("t%dc%d", t, c), Sig: signed(text)})
		}
	}
	out = append(out, Member{ID: "empty", Sig: signed("")})
	return out
}

func TestGroupLikeReference(t *testing.T) {
	for _, tc := range []struct{ templates, copies int }{{1, 2}, {3, 10}, {2, 90}} {
		members := estate(tc.templates, tc.copies)
		g1, p1 := Group(members, Options{})
		g2, p2 := groupReference(members, Options{})
		if !reflect.DeepEqual(g1, g2) || !reflect.DeepEqual(p1, p2) {
			t.Errorf("%d templates × %d copies: Group gives %d families and %d pairs, the reference %d and %d",
				tc.templates, tc.copies, len(g1), len(p1), len(g2), len(p2))
		}
		if len(p2) == 0 && tc.copies > 2 {
			t.Errorf("%d templates × %d copies: no pair joined; the test tests nothing", tc.templates, tc.copies)
		}
	}
}

func BenchmarkGroupNearCopies(b *testing.B) {
	members := estate(4, 100)
	b.ResetTimer()
	for range b.N {
		Group(members, Options{})
	}
}
