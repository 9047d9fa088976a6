package chunk

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/names"
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
	return document.FirstRunes(b.String(), 300)
}

// Names learns the names a person would call a document by, from its text
// (page furniture blanked) and its name in the collection (names.Learn).
func Names(doc *document.Document) names.Names {
	text := doc.Masked(document.Span{Start: 0, End: doc.Runes()})
	nm := names.Learn(text, doc.Name)
	mail := doc.Meta != nil && doc.Meta.Message != nil
	nm.Correspondence = names.Correspondence(text, doc.Name, mail, len(nm.Parties) > 0)
	if mail {
		// An e-mail is called by its subject, and dated by its header.
		if m := doc.Meta.Message; m.Subject != "" {
			nm.Title = m.Subject
		}
		nm.Type = "" // a body's first words name no kind of agreement
		if m := doc.Meta.Message; nm.Date == "" && m.Date != "" {
			nm.Date = m.Date
		}
	}
	return nm
}

// Opening returns the first n code points of a document's text, for routing.
func Opening(doc *document.Document, n int) string { return document.FirstRunes(doc.Text, n) }

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
)

// Summary derives a document summary from its opening text, with no model:
// the title is the first line that reads like one (a short line naming an
// agreement, or the first non-empty line); parties come from the "between A
// and B" phrase of the preamble; the type is the title's last words naming a
// kind of agreement.
func Summary(doc *document.Document) DocSummary {
	var s DocSummary
	// The title is read after a table of contents that opens the document
	// (names.PreambleHead), as the names learner reads it, so it is not the
	// contents' heading. The "between" phrase is read in the opening as it
	// always was: this splitter cuts a long preamble at every "and" ("doing
	// business as …", "Franchisee who hereby agrees …"), and the parties
	// the names learner reads stand in where it finds none (usecase.Describe).
	s.Title = names.Title(names.PreambleHead(doc.Text, headLimit))
	head := doc.Text
	if len(head) > headLimit {
		head = head[:headLimit]
		for !utf8.ValidString(head) && len(head) > 0 {
			head = head[:len(head)-1]
		}
	}
	if m := betweenRe().FindStringSubmatch(abbrevRe().ReplaceAllString(head, "$1")); m != nil {
		body := parenRe().ReplaceAllString(m[1], " ")
		for _, p := range partySep().Split(body, 4) {
			p = strings.Trim(strings.Join(strings.Fields(p), " "), " ,.;:\"“”")
			if len(p) >= 2 && len(p) <= 100 {
				s.Parties = append(s.Parties, p)
			}
		}
	}
	s.Type = names.TypeOf(s.Title)
	return s
}
