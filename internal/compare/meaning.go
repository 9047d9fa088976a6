package compare

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// The closed classes of English words whose change can reverse or shift
// what a clause means while leaving almost every word in place. They are
// grammar, not vocabulary learnt from any benchmark: negators, the modal
// verbs by the force they give (a duty, a permission, a recommendation),
// quantifiers and the two coordinators.
var (
	negators = []string{"not", "no", "never", "neither", "nor", "none", "nothing", "nobody", "cannot", "without", "unless", "except"}
	modals   = map[string]string{
		"shall": "duty", "must": "duty", "will": "duty",
		"may": "permission", "can": "permission", "might": "permission", "could": "permission",
		"should": "recommendation", "would": "recommendation",
	}
	quantifiers  = []string{"any", "all", "each", "every", "some", "either", "both", "only", "sole", "solely", "exclusive", "exclusively", "nonexclusive"}
	coordinators = []string{"and", "or"}
)

// Meaning lists the edits among the words deleted from a clause and
// inserted into it that can change what it means: a negator inserted or
// removed ("inserts “not”"), a modal verb of one force replaced by one of
// another ("“may” → “shall”") or inserted or removed, a quantifier or
// coordinator changed ("“any” → “no”", "“and” → “or”"), a number changed
// ("“30” → “60”"). Words are compared without case; the result is empty
// for changes of wording only.
func Meaning(deleted, inserted []string) []string {
	del, ins := lower(deleted), lower(inserted)
	// Words both deleted and inserted (moved within the clause) cancel.
	del, ins = cancel(del, ins)
	var out []string
	pick := func(ws []string, keep func(string) bool) []string {
		var r []string
		for _, w := range ws {
			if keep(w) {
				r = append(r, w)
			}
		}
		return r
	}
	in := func(set []string) func(string) bool { return func(w string) bool { return slices.Contains(set, w) } }
	// Modal verbs: a replacement reads as one edit.
	dm, im := pick(del, func(w string) bool { return modals[w] != "" }), pick(ins, func(w string) bool { return modals[w] != "" })
	out = append(out, pairs(dm, im, func(a, b string) bool { return modals[a] != modals[b] })...)
	// Negators and quantifiers: a replacement of one by the other ("any" →
	// "no") is one edit; the rest are inserted or removed.
	nq := func(w string) bool { return in(negators)(w) || in(quantifiers)(w) }
	out = append(out, pairs(pick(del, nq), pick(ins, nq), func(a, b string) bool { return true })...)
	out = append(out, pairs(pick(del, in(coordinators)), pick(ins, in(coordinators)), func(a, b string) bool { return true })...)
	out = append(out, pairs(pick(del, isNumber), pick(ins, isNumber), func(a, b string) bool { return true })...)
	return out
}

// pairs words deleted with words inserted in order (“a” → “b”; nothing
// when can says the two mean the same) and reports the rest as removed or
// inserted.
func pairs(del, ins []string, can func(a, b string) bool) []string {
	var out []string
	k := min(len(del), len(ins))
	for x := range k {
		if can(del[x], ins[x]) { // else one word for another of the same force
			out = append(out, fmt.Sprintf("“%s” → “%s”", del[x], ins[x]))
		}
	}
	for _, w := range del[k:] {
		out = append(out, fmt.Sprintf("removes “%s”", w))
	}
	for _, w := range ins[k:] {
		out = append(out, fmt.Sprintf("inserts “%s”", w))
	}
	return out
}

func lower(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = strings.ToLower(w)
	}
	return out
}

// cancel removes the words found in both lists (as many times as both
// hold them).
func cancel(del, ins []string) ([]string, []string) {
	count := map[string]int{}
	for _, w := range ins {
		count[w]++
	}
	var d []string
	for _, w := range del {
		if count[w] > 0 {
			count[w]--
			continue
		}
		d = append(d, w)
	}
	var i []string
	for _, w := range ins {
		if count[w] > 0 {
			count[w]--
			i = append(i, w)
		}
	}
	return d, i
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return w != ""
}
