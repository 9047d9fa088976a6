package search

import "github.com/pakton/pakton/internal/search/index"

// addLearned adds the words a model learnt from labelled questions
// (Query.Learned) to the weighted query: a word already searched with
// weighs the more, a new one is searched with its learnt weight. With p
// set, each word added is listed in its plan.
func addLearned(v *index.Snapshot, qt []queryTerm, learned []Weighted, p *Plan) []queryTerm {
	if len(learned) == 0 {
		return qt
	}
	at := make(map[int32]int, len(qt))
	for i, t := range qt {
		if _, ok := at[t.id]; !ok {
			at[t.id] = i
		}
	}
	for _, l := range learned {
		if l.Weight <= 0 {
			continue
		}
		id, ok := v.Lookup(l.Term)
		if !ok {
			continue
		}
		if p != nil {
			p.Learned = append(p.Learned, Weighted{Term: l.Term, Weight: l.Weight})
		}
		if i, ok := at[id]; ok {
			qt[i].weight += l.Weight
			continue
		}
		at[id] = len(qt)
		// Like a body word learnt from headings, a learnt word counts half
		// in a subtree view: it should find the clause, not the longest
		// text around it.
		qt = append(qt, queryTerm{id: id, weight: l.Weight, body: true})
	}
	return qt
}
