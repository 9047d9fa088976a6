package answer

import (
	"strings"

	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// Neighbouring rights. A provision is its definition, not its words: an
// exclusion of consequential damages ("In no event shall either party be
// liable for any indirect … damages") shares its cue words with a cap on
// liability ("in no event", "liable"), a plain anti-assignment clause
// ("Neither party may assign this Agreement without the prior written
// consent …") with a change-of-control clause ("assign", "consent"). The
// playbook says what each provision is not: its Excludes names the
// neighbouring provisions (playbook.Excluded), and their keywords — with
// their proximity rules — say what a clause of each of them holds.
//
// A segment of a clause (polarity.go) is a neighbour's when the
// neighbour's keywords in it weigh 2 or more (a key word, or two lesser
// ones) and it holds none of the provision's own keywords (those the
// playbook weighs below 1, such as "written consent" beside a change of
// control, tell nothing). When the focus of a clause — the segment the
// provision's cue words weigh most in — is a neighbour's, the clause is
// read again without the neighbours' segments; it speaks of the provision
// only if a segment that is left, and says something (not a heading),
// holds one of the provision's keywords. Otherwise the clause grants the
// neighbouring right, and is not the provision. So a cap on liability is
// read from a clause that caps ("shall not exceed the fees paid"), a
// change of control from one that names a merger, a change of control or
// an assignment by operation of law, each as its playbook entry defines
// it.
//
// An exception (the exceptions to a cap) is written inside the clause it
// is an exception to: its neighbour's words are where it is, not another
// right, and it is read without its neighbours.

const (
	// minOwnBoost is the least boost a keyword needs to tell its
	// provision.
	minOwnBoost = 1.0
	// minNeighbourWeight is the least weight of a neighbour's keywords
	// that makes a segment the neighbour's: "in no event shall … be
	// liable" alone is how a cap is written too.
	minNeighbourWeight = 2.0
)

// ofNeighbour returns the neighbour of nb (the provisions p's Excludes
// names) whose segment seg is: the neighbour's keywords in it weigh
// minNeighbourWeight or more, and it holds none of p's. nil when seg is
// not a neighbour's.
func ofNeighbour(p *playbook.Provision, nb []*playbook.Provision, seg string) *playbook.Provision {
	if len(nb) == 0 || polarityOf(p, cueWordsOf(p)) == playbook.PolarityException || detect.KeywordWeight(p, seg, minOwnBoost) > 0 {
		return nil
	}
	for _, n := range nb {
		if detect.KeywordWeight(n, seg, minOwnBoost) >= minNeighbourWeight {
			return n
		}
	}
	return nil
}

// readBeside reads whether s grants, conditions or excludes p beside its
// neighbours nb. It returns the text read (s, or s with the neighbours'
// segments blanked out, byte for byte, so that places in it are places in
// s) and its reading; when s grants only a neighbouring right it returns
// that neighbour, with the reading of s (whose focus is the neighbour's
// segment).
func readBeside(p *playbook.Provision, nb []*playbook.Provision, s string) (string, polarity, *playbook.Provision) {
	pol := readPolarity(p, s)
	if len(nb) == 0 || pol.weight == 0 {
		return s, pol, nil
	}
	n := ofNeighbour(p, nb, s[pol.focus[0]:pol.focus[1]])
	if n == nil {
		return s, pol, nil
	}
	b := []byte(s)
	for _, sg := range segments(s) {
		if ofNeighbour(p, nb, s[sg.at:sg.end]) == nil {
			continue
		}
		for k := sg.at; k < sg.end; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
	}
	if !ownWords(p, nb, s) {
		return s, pol, n
	}
	rest := string(b)
	return rest, readPolarity(p, rest), nil
}

// ownWords reports whether a segment of s that says something (five words
// or more, not the heading that opens s) and is not a neighbour's holds a
// keyword of p.
func ownWords(p *playbook.Provision, nb []*playbook.Provision, s string) bool {
	for _, sg := range segments(s) {
		seg := s[sg.at:sg.end]
		if len(strings.Fields(seg)) >= minSegmentWords && !headingSegment(s, sg) && ofNeighbour(p, nb, seg) == nil && detect.KeywordWeight(p, seg, minOwnBoost) > 0 {
			return true
		}
	}
	return false
}

// neighbourReason says why a clause of neighbour n is not provision p.
func neighbourReason(p, n *playbook.Provision) string {
	return "the clause is " + n.Name + ", which the playbook says " + p.Name + " is not"
}
