package answer

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/review/detect"
)

// Whose date is it? A contract writes its own date in the sentence that
// names it — "This Development Agreement (the "Agreement") dated as of
// March 20, 2020", "THIS ADDENDUM is made on the 4th day of February
// 2019", "the parties have executed this Agreement as of this 4th day of
// April, 2003" — and the dates of other documents after their names: "a
// sublicense agreement dated February 19, 2019", "that certain
// Manufacturing Agreement, effective September 30, 2011", "by letter dated
// November 30, 2007". A date is the contract's own when the nearest name of
// a document before it in its sentence is this one's: "this"/"hereby" just
// before it, a defined name in brackets ("(the "Agreement")"), or a title
// that opens the sentence; another document's when that name is any other.
// Written from drafting conventions (the playbook says an Agreement Date is
// "not dates of earlier agreements … the contract refers to").

// dateOwner says whose date a candidate is.
type dateOwner int

const (
	ownerUnknown dateOwner = iota // no document named before it
	ownerSelf                     // this contract's
	ownerOther                    // another document's
)

// reDocWord is a word that names a document (reKindWord without "terms"
// and "conditions", which name parts of one).
var reDocWord = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(?:agreements?|contracts?|licen[cs]es?|leases?|subleases?|deeds?|amendments?|addend(?:um|a)|memorand(?:um|a)|understanding|indentures?|guarantees?|guaranty|charter|orders?|notes?|warrants?|undertakings?|protocols?|letters?|plans?|instruments?|certificates?)$`)
})

// ownerWords are the words before a document's name that make it this one.
var ownerWords = map[string]bool{"this": true, "hereby": true, "herein": true, "present": true}

// titleWord reports whether w may be part of a title: capitalised, a
// number, or a short connecting word.
func titleWord(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	if unicode.IsUpper(r) || unicode.IsDigit(r) {
		return true
	}
	switch strings.ToLower(w) {
	case "of", "and", "to", "for", "the", "on", "in", "&":
		return true
	}
	return false
}

// ownerOf says whose date the value at [at, end) of s is; toks are s's
// tokens.
func ownerOf(s string, toks []token, at int) dateOwner {
	first := -1
	for k, t := range toks {
		if t.end > at {
			first = k
			break
		}
	}
	if first < 0 {
		return ownerUnknown
	}
	sent := toks[first].sentence
	// the nearest document name before the date in its sentence
	for k := first - 1; k >= 0 && toks[k].sentence == sent; k-- {
		w := s[toks[k].at:toks[k].end]
		if !reDocWord().MatchString(w) {
			continue
		}
		// a defined name in brackets: (the "Agreement"), (this "Amendment")
		before := s[max(0, toks[k].at-12):toks[k].at]
		if strings.ContainsAny(before, "(") && strings.ContainsAny(before, "\"“'") {
			return ownerSelf
		}
		for j := k - 1; j >= 0 && j >= k-5 && toks[j].sentence == sent; j-- {
			if ownerWords[strings.ToLower(s[toks[j].at:toks[j].end])] {
				return ownerSelf
			}
		}
		// a title that opens the sentence: "AMENDMENT TO SERVICES
		// AGREEMENT, dated …"
		title := true
		for j := k - 1; j >= 0 && toks[j].sentence == sent; j-- {
			if !titleWord(s[toks[j].at:toks[j].end]) {
				title = false
				break
			}
		}
		if title {
			return ownerSelf
		}
		return ownerOther
	}
	return ownerUnknown
}

// reEndBefore ends the text before a date that ends a term.
var reEndBefore = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:until|through|thru|expir(?:e|es|ing)(?:\s+on)?|end(?:s|ing)?\s+on|terminat(?:e|es|ing)\s+on)\s+(?:the\s+)?$`)
})

// selfBonus is what being the contract's own date adds to a date's cue
// score (about one strong cue word next to it).
const selfBonus = 2.5

// pickDate chooses the contract's date among cands: another document's
// dates are left out while any other is left, the contract's own get
// selfBonus, and the cue words decide (pickNear's score; the first written
// on a tie).
// reEffectiveBefore ends the words before a date from which terms apply:
// "made effective as of", "effective on", "with effect from".
var reEffectiveBefore = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:effective|with\s+effect)\s+(?:as\s+(?:of|from)|on|from)?\s*(?:the\s+)?$`)
})

func pickDate(s string, cands []valueAt, c cues) (valueAt, bool) {
	if len(cands) == 0 {
		return valueAt{}, false
	}
	toks := tokens(s)
	owners := make([]dateOwner, len(cands))
	others := 0
	for i, v := range cands {
		owners[i] = ownerOf(s, toks, v.at)
		if owners[i] == ownerOther {
			others++
		}
	}
	// a date after an end word ("effective until February 28, 2004") ends
	// a term; it is not the date a contract is made or starts
	ends := make([]bool, len(cands))
	nEnds := 0
	for i, v := range cands {
		if owners[i] != ownerOther && reEndBefore().MatchString(s[max(0, v.at-30):v.at]) {
			ends[i] = true
			nEnds++
		}
	}
	// a contract that leaves its own date blank but takes effect on a
	// date written ("dated as of this ____ day of ______, 2012, but made
	// effective as of February 20, 2012"): the date after "effective" is
	// when its terms apply, not the date it is dated, for a provision whose
	// cue words do not speak of effectiveness
	effs := make([]bool, len(cands))
	nEffs := 0
	blank := false
	for _, v := range cands {
		blank = blank || IsBlankDate(v.v)
	}
	// — or that writes the date it is made beside the date it takes effect,
	// in one sentence ("entered on this 9th day of October, 2001 and is
	// deemed effective as of October 1, 2001")
	if c[detect.StemWord("effective")] == 0 {
		effective := make([]bool, len(cands))
		for i, v := range cands {
			effective[i] = owners[i] != ownerOther && !ends[i] && reEffectiveBefore().MatchString(s[max(0, v.at-30):v.at])
		}
		sentence := func(at int) int {
			for _, t := range toks {
				if t.end > at {
					return t.sentence
				}
			}
			return -1
		}
		for i, v := range cands {
			if !effective[i] {
				continue
			}
			made := blank
			for j, w := range cands {
				made = made || j != i && !effective[j] && !ends[j] && owners[j] != ownerOther && sentence(w.at) == sentence(v.at)
			}
			if made {
				effs[i] = true
				nEffs++
			}
		}
	}
	best, bestScore := -1, 0.0
	for i, v := range cands {
		if owners[i] == ownerOther && others < len(cands) || ends[i] && nEnds+others < len(cands) ||
			effs[i] && nEffs+nEnds+others < len(cands) {
			continue
		}
		first, last := -1, -1
		for k, t := range toks {
			if t.end > v.at && t.at < v.end {
				if first < 0 {
					first = k
				}
				last = k
			}
		}
		score := 0.0
		if first >= 0 {
			score = cueScore(toks, first, last, c)
		}
		if owners[i] == ownerSelf {
			score += selfBonus
		}
		if best < 0 || score > bestScore+1e-9 {
			best, bestScore = i, score
		}
	}
	return cands[best], true
}
