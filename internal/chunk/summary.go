package chunk

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
)

// DocSummary is the short, deterministic description of a contract used for
// summary augmentation and routing: what a question naming the contract
// would mention. With a language model configured, the Archivist may write a
// richer one; this one needs no model.
type DocSummary struct {
	Title   string   `json:"title"`
	Parties []string `json:"parties,omitempty"`
	Type    string   `json:"type,omitempty"`
	// Generated is a model-written summary (the Archivist's), when one was
	// made at ingest; it then stands in for the line above in routing and
	// summary augmentation.
	Generated string `json:"generated,omitempty"`
}

// String renders the summary as one line of at most about 300 characters.
func (s DocSummary) String() string {
	var b strings.Builder
	b.WriteString(s.Title)
	if len(s.Parties) > 0 && !strings.Contains(s.Title, s.Parties[0]) {
		b.WriteString(" between ")
		b.WriteString(strings.Join(s.Parties, " and "))
	}
	if s.Type != "" && !strings.Contains(strings.ToLower(s.Title), strings.ToLower(s.Type)) {
		b.WriteString(" (" + s.Type + ")")
	}
	return truncateRunes(b.String(), 300)
}

// Opening returns the first n code points of a document's text, for routing.
func Opening(doc *document.Document, n int) string { return truncateRunes(doc.Text, n) }

// headLimit is how much of the opening text the summary looks at (bytes).
const headLimit = 4000

var (
	// Regular expressions are compiled on first use (sync.OnceValue): compiled
	// at start-up they were a cost every command paid, a one-shot search too.
	betweenRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?is)\b(?:by and between|between|among|by and among)\s+(.{3,400}?)(?:\.\s|;|\bwhereas\b|\brecitals\b|\bwitnesseth\b|\n\s*\n)`)
	})
	partySep = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i),?\s+\band\b\s+|;\s*`) })
	parenRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\([^)]*\)`) })
	// abbrevRe finds company-form abbreviations whose period does not end a
	// sentence ("Acme, Inc. and …").
	abbrevRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(Inc|Ltd|Corp|Co|Cos|Bros|L\.L\.C|L\.P|N\.V|S\.A|B\.V|A\.G|S\.p\.A|Pty|No|St|Mr|Ms|Dr)\.`)
	})
	typeWords = []string{"agreement", "contract", "license", "licence", "amendment", "addendum", "memorandum", "deed", "lease", "terms", "statement of work", "letter"}
)

// Summary derives a document summary from its opening text, with no model:
// the title is the first line that reads like one (a short line naming an
// agreement, or the first non-empty line); parties come from the "between A
// and B" phrase of the preamble; the type is the title's last words naming a
// kind of agreement.
func Summary(doc *document.Document) DocSummary {
	head := doc.Text
	if len(head) > headLimit {
		head = head[:headLimit]
		for !utf8.ValidString(head) && len(head) > 0 {
			head = head[:len(head)-1]
		}
	}
	var s DocSummary
	lines := strings.Split(head, "\n")
	first := ""
	for i, ln := range lines {
		if i > 60 {
			break
		}
		t := strings.Join(strings.Fields(ln), " ")
		if t == "" || isNoise(t) {
			continue
		}
		if first == "" {
			first = t
		}
		lower := strings.ToLower(t)
		if len(t) <= 120 && containsAny(lower, typeWords) && !strings.HasSuffix(t, ",") {
			s.Title = t
			break
		}
	}
	if s.Title == "" {
		s.Title = first
	}
	s.Title = truncateRunes(s.Title, 120)
	if m := betweenRe().FindStringSubmatch(abbrevRe().ReplaceAllString(head, "$1")); m != nil {
		body := parenRe().ReplaceAllString(m[1], " ")
		for _, p := range partySep().Split(body, 4) {
			p = strings.Trim(strings.Join(strings.Fields(p), " "), " ,.;:\"“”")
			if len(p) >= 2 && len(p) <= 100 {
				s.Parties = append(s.Parties, p)
			}
		}
	}
	lower := strings.ToLower(s.Title)
	for _, w := range typeWords {
		if i := strings.LastIndex(lower, w); i >= 0 {
			// the words before the type word, e.g. "master services agreement"
			start := strings.LastIndexAny(lower[:i], ".;:,()") + 1
			s.Type = strings.TrimSpace(s.Title[start : i+len(w)])
			break
		}
	}
	return s
}

// isNoise reports lines that are not a title: page furniture, exhibit
// numbers, confidentiality legends, dates.
func isNoise(t string) bool {
	lower := strings.ToLower(t)
	if strings.HasPrefix(lower, "exhibit ") && len(t) < 20 || strings.HasPrefix(lower, "page ") || strings.HasPrefix(lower, "source:") {
		return true
	}
	letters := 0
	for _, r := range t {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters < 3
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func truncateRunes(s string, n int) string {
	i := 0
	for b := range s {
		if i == n {
			return s[:b]
		}
		i++
	}
	return s
}
