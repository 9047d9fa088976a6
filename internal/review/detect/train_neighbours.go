package detect

import (
	"strings"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/review/playbook"
)

// Neighbouring rights as negatives. A provision is its definition, not its
// words: a clause that ends the contract for breach uses the words of one
// that ends it for convenience, a cap's exceptions the words of the cap.
// What tells them apart is in the labels of the other provisions and in the
// contract's structure, so training shows a detector, every epoch, the
// passages that hold a neighbouring provision and not its own:
//
//   - by the labels: a passage that covers a labelled span of a neighbour
//     (a provision of the same playbook group, or one the provision's
//     Excludes names) and no span of this provision;
//   - by the structure: in a contract that has the provision, the other
//     clauses under the same heading as a clause that holds it (the other
//     termination rights of a termination section, the other limits of a
//     liability section), which the labels leave out.
//
// Neither is a list of words: which provisions neighbour which is the
// playbook's (its groups and exclusions), and which passages hold them is
// the labels'.

// neighbours returns, for each labelled provision of provs (by index into
// provs), the indexes of the others that neighbour it.
func neighbours(pb *playbook.Playbook, provs []provData) [][]int {
	out := make([][]int, len(provs))
	for i, a := range provs {
		pa := &pb.Provisions[a.idx]
		ex := strings.ToLower(pa.Excludes)
		for j, b := range provs {
			if i == j {
				continue
			}
			pbj := &pb.Provisions[b.idx]
			if pa.Group != "" && pa.Group == pbj.Group || strings.Contains(ex, strings.ToLower(pbj.Name)) {
				out[i] = append(out[i], j)
			}
		}
	}
	return out
}

// neighbourNegatives marks, in every cell of provs, the passages that hold
// a neighbouring provision and not the cell's own (cellData.near).
func neighbourNegatives(docs []TrainingDoc, pb *playbook.Playbook, provs []provData) {
	nb := neighbours(pb, provs)
	// the cell of each provision in each document
	cellOf := make([]map[int]*cellData, len(provs))
	for j := range provs {
		cellOf[j] = map[int]*cellData{}
		for c := range provs[j].cells {
			cellOf[j][provs[j].cells[c].doc] = &provs[j].cells[c]
		}
	}
	for j := range provs {
		for c := range provs[j].cells {
			cd := &provs[j].cells[c]
			prep := docs[cd.doc].Prep
			near := make([]bool, len(cd.pos))
			any := false
			for _, o := range nb[j] {
				oc := cellOf[o][cd.doc]
				if oc == nil || !oc.present {
					continue
				}
				for k := range near {
					if oc.pos[k] && !cd.pos[k] {
						near[k], any = true, true
					}
				}
			}
			if cd.present {
				for k := range siblingsOfPositives(prep, cd.pos) {
					near[k], any = true, true
				}
			}
			if any {
				cd.near = near
			}
		}
	}
}

// siblingsOfPositives returns the passages of clauses that share a parent
// clause (not the document itself) with a clause holding a positive
// passage, and that hold none themselves.
func siblingsOfPositives(prep *Prepared, pos []bool) map[int]bool {
	t := prep.tree
	parents := map[int]bool{}
	posNode := map[int]bool{}
	for k, p := range pos {
		if !p {
			continue
		}
		n := prep.passages[k].Node
		posNode[n] = true
		if par := t.Nodes[n].Parent; par > 0 && t.Nodes[par].Kind != clause.KindDocument {
			parents[par] = true
		}
	}
	out := map[int]bool{}
	if len(parents) == 0 {
		return out
	}
	for k := range prep.passages {
		n := prep.passages[k].Node
		if pos[k] || posNode[n] {
			continue
		}
		if parents[t.Nodes[n].Parent] {
			out[k] = true
		}
	}
	return out
}
