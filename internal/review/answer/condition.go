package answer

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// Condition is a value condition a deal-room question puts on the provision
// it asks about: "Which contracts are governed by New York law?" (the
// jurisdiction is New York), "… with notice of more than 60 days" (the
// period read is longer than 60 days), "… expiring before 2025", "… a cap
// below 1x the fees" (the multiple read is below 1). It is checked on the
// values the review reads: the cell's answer, or — for a period or a
// multiple of a provision whose answer is Yes/No — what its clause says.
type Condition struct {
	Text  string `json:"text"`  // the question's words: "New York", "more than 60 days"
	Kind  string `json:"kind"`  // "jurisdiction", "duration", "year" or "multiple"
	Op    string `json:"op"`    // "=", ">", ">=", "<" or "<="
	Value string `json:"value"` // "New York", "60 days", "2025", "1"
	n     float64
}

// Condition kinds.
const (
	CondJurisdiction = "jurisdiction"
	CondDuration     = "duration"
	CondYear         = "year"
	CondMultiple     = "multiple"
)

var (
	reCompare = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(more than|longer than|greater than|over|exceeding|in excess of|at least|no less than|not less than|minimum of|less than|shorter than|fewer than|under|below|within|at most|no more than|not more than|up to|maximum of|above|exactly|of)\s+`)
	})
	reYearCompare = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(before|after|by|until|in|prior to|later than|earlier than|no later than)\s+((?:19|20)\d\d)\b`)
	})
	reMultiple = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(\d+(?:\.\d+)?|one|two|three|four|five|ten)\s*(?:x\b|×|times\b)`)
	})
	reMultipleWord = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(twice|double)\b`)
	})
)

// compareOps maps comparison words to operators.
var compareOps = map[string]string{
	"more than": ">", "longer than": ">", "greater than": ">", "over": ">", "exceeding": ">", "in excess of": ">", "above": ">",
	"at least": ">=", "no less than": ">=", "not less than": ">=", "minimum of": ">=",
	"less than": "<", "shorter than": "<", "fewer than": "<", "under": "<", "below": "<",
	"within": "<=", "at most": "<=", "no more than": "<=", "not more than": "<=", "up to": "<=", "maximum of": "<=",
	"exactly": "=", "of": "=",
	"before": "<", "prior to": "<", "earlier than": "<", "after": ">", "later than": ">", "in": "=", "by": "<=", "until": "<=", "no later than": "<=",
}

// ParseCondition reads the value condition of a deal-room question about
// provision p, or returns nil when it has none. A jurisdiction is looked
// for only in a question about a provision answered by one; a period, a
// year or a multiple only after a comparison ("more than 60 days", "before
// 2025", "below 1x").
func ParseCondition(question string, p *playbook.Provision) *Condition {
	if p.Answer == playbook.AnswerJurisdiction {
		if j, _ := firstJurisdiction(question, false); j != "" {
			return &Condition{Text: j, Kind: CondJurisdiction, Op: "=", Value: j}
		}
	}
	for _, m := range reCompare().FindAllStringSubmatchIndex(question, -1) {
		word := strings.ToLower(question[m[2]:m[3]])
		rest := question[m[1]:]
		if ms := reMultiple().FindStringSubmatchIndex(rest); ms != nil && ms[0] == 0 {
			if n, ok := number(rest[ms[2]:ms[3]]); ok {
				return &Condition{Text: strings.TrimSpace(question[m[0] : m[1]+ms[1]]), Kind: CondMultiple, Op: compareOps[word], Value: strconv.FormatFloat(n, 'f', -1, 64), n: n}
			}
		}
		if ds := allDurationsAt(rest); len(ds) > 0 && ds[0].at == 0 {
			if days, ok := durationDays(ds[0].v); ok {
				return &Condition{Text: strings.TrimSpace(question[m[0] : m[1]+ds[0].end]), Kind: CondDuration, Op: compareOps[word], Value: ds[0].v, n: days}
			}
		}
	}
	if m := reYearCompare().FindStringSubmatch(question); m != nil && (p.Answer == playbook.AnswerDate || p.Answer == playbook.AnswerEndDate) {
		y, _ := strconv.Atoi(m[2])
		return &Condition{Text: m[0], Kind: CondYear, Op: compareOps[strings.ToLower(m[1])], Value: m[2], n: float64(y)}
	}
	return nil
}

// Check reports whether a found cell meets the condition, from the answer
// it shows and its extracts: the value it was checked on, whether it meets
// it, and why it cannot be told ("" when it can).
func (c *Condition) Check(answer string, extracts []detect.Extract) (value string, ok bool, why string) {
	var texts []string
	for _, e := range extracts {
		texts = append(texts, e.Text)
	}
	clause := strings.Join(texts, "\n")
	switch c.Kind {
	case CondJurisdiction:
		v := Jurisdiction(answer)
		if v == "" {
			v = Jurisdiction(clause)
		}
		if v == "" {
			return "", false, "no jurisdiction could be read from its clause"
		}
		return v, strings.EqualFold(v, c.Value), ""
	case CondDuration:
		v, okv := FirstDuration(answer)
		if !okv {
			v, okv = FirstDuration(clause)
		}
		if !okv {
			return "", false, "no period could be read from its clause"
		}
		days, okd := durationDays(v)
		if !okd {
			return v, false, "the period read (" + v + ") is not in days, weeks, months or years"
		}
		return v, compare(days, c.Op, c.n), ""
	case CondYear:
		d := answer
		if _, okd := FirstDate(d); !okd {
			d, _ = FirstDate(clause)
		} else {
			d, _ = FirstDate(d)
		}
		if len(d) < 4 {
			return "", false, "no date could be read from its clause"
		}
		y, err := strconv.Atoi(d[:4])
		if err != nil {
			return d, false, "no date could be read from its clause"
		}
		return d, compare(float64(y), c.Op, c.n), ""
	case CondMultiple:
		for _, s := range []string{answer, clause} {
			if m := reMultiple().FindStringSubmatch(s); m != nil {
				if n, okn := number(m[1]); okn {
					return m[0], compare(n, c.Op, c.n), ""
				}
			}
			if m := reMultipleWord().FindString(s); m != "" {
				return m, compare(2, c.Op, c.n), ""
			}
		}
		return "", false, "no multiple of the fees could be read from its clause"
	}
	return "", false, "the condition's kind is unknown"
}

// compare applies op to a and b.
func compare(a float64, op string, b float64) bool {
	switch op {
	case ">":
		return a > b
	case ">=":
		return a >= b
	case "<":
		return a < b
	case "<=":
		return a <= b
	}
	return a == b
}

// durationDays converts a normalised period ("60 days", "3 months") to
// days (a month 30, a year 365; business days as days).
func durationDays(v string) (float64, bool) {
	f := strings.Fields(v)
	if len(f) < 2 {
		return 0, false
	}
	n, err := strconv.Atoi(f[0])
	if err != nil {
		return 0, false
	}
	switch strings.TrimSuffix(f[len(f)-1], "s") {
	case "day":
		return float64(n), true
	case "week":
		return float64(7 * n), true
	case "month":
		return float64(30 * n), true
	case "year":
		return float64(365 * n), true
	}
	return 0, false
}

// number reads a number written in digits or as a word.
func number(s string) (float64, bool) {
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		return n, true
	}
	if n := wordNumber(s); n > 0 {
		return float64(n), true
	}
	return 0, false
}
