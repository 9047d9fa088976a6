package detect

import (
	"sort"

	"github.com/pakton/pakton/internal/review/playbook"
)

// A clause read with the clauses around it. An exception to a non-compete
// ("Notwithstanding the foregoing, …") is worded as an exception to
// anything; what makes it a Competitive Restriction Exception is the
// restriction before it. A licence to a party's affiliates is a licence
// grant that names affiliates. So each passage also has features that say
// which provisions the passages around it look like, in the playbook's own
// terms — the zero-shot scorer's, which needs no labels:
//
//   - "zt:NAME": the passage itself is among the relationTop passages of
//     its contract for provision NAME;
//   - "zp:NAME": the passage before it is;
//   - "za:NAME": a clause it sits in (its parent, or further up) is;
//   - "zs:NAME": another clause under the same parent clause is (the
//     restriction an exception sits beside, the grant a proviso follows).
//
// Which of these matter for which provision is learnt from the labels, like
// any other feature. The vocabulary is the playbook's provisions, not
// words; a passage's features depend on the contract's other passages, so
// they are computed with the zero-shot scores, when the contract is scored
// (relationFeatures), not when it is prepared.
const relationTop = 3

// relationTags name the relations, in relationFeatures' order.
var relationTags = [...]string{"zt:", "zp:", "za:", "zs:"}

// relationIDs returns, per provision of pb, the feature ids of its
// relations (relationTags).
func relationIDs(pb *playbook.Playbook) [][len(relationTags)]uint32 {
	out := make([][len(relationTags)]uint32, len(pb.Provisions))
	for i := range pb.Provisions {
		name := pb.Provisions[i].LabelName()
		for r, tag := range relationTags {
			out[i][r] = namedFeature(tag + name)
		}
	}
	return out
}

// namedFeature is featureID, recording the name when names are recorded.
func namedFeature(name string) uint32 {
	id := featureID(name)
	if featureNames != nil {
		featureNamesMu.Lock()
		featureNames[id] = name
		featureNamesMu.Unlock()
	}
	return id
}

// relationFeatures returns, per passage of prep, its relation features,
// given every provision's zero-shot score of every passage (zs[provision]
// [passage]) and the provisions' relation ids (relationIDs).
func relationFeatures(prep *Prepared, zs [][]float64, ids [][len(relationTags)]uint32) [][]uint32 {
	n := len(prep.passages)
	out := make([][]uint32, n)
	if n == 0 {
		return out
	}
	t := prep.tree
	order := make([]int, n)
	for j := range zs {
		if j >= len(ids) {
			break
		}
		for k := range order {
			order[k] = k
		}
		s := zs[j]
		sort.SliceStable(order, func(a, b int) bool { return s[order[a]] > s[order[b]] })
		top := map[int]bool{} // passages
		nodes := map[int]bool{}
		parents := map[int]int{} // parent clause → how many of its children are top nodes
		for _, k := range order[:min(relationTop, n)] {
			if s[k] <= 0 {
				break
			}
			top[k] = true
			nd := prep.passages[k].Node
			if !nodes[nd] && t != nil {
				if par := t.Nodes[nd].Parent; par > 0 {
					parents[par]++
				}
			}
			nodes[nd] = true
		}
		if len(top) == 0 {
			continue
		}
		for k := range n {
			if top[k] {
				out[k] = append(out[k], ids[j][0])
			}
			if k > 0 && top[k-1] {
				out[k] = append(out[k], ids[j][1])
			}
			if t != nil {
				nd := prep.passages[k].Node
				for a := t.Nodes[nd].Parent; a > 0; a = t.Nodes[a].Parent {
					if nodes[a] {
						out[k] = append(out[k], ids[j][2])
						break
					}
				}
				// a sibling: a top node under the same parent that is
				// not this passage's own node
				if par := t.Nodes[nd].Parent; par > 0 {
					if c := parents[par]; c > 1 || c == 1 && !nodes[nd] {
						out[k] = append(out[k], ids[j][3])
					}
				}
			}
		}
	}
	return out
}
