package chunk

import (
	"strings"

	"github.com/pakton/pakton/internal/document"
)

// DocSummary is the short, deterministic description of a contract used for
// summary augmentation and routing: what a question naming the contract
// would mention.
type DocSummary struct {
	Title   string
	Parties []string
	Type    string
}

// String renders the summary as one line.
func (s DocSummary) String() string {
	var b strings.Builder
	b.WriteString(s.Title)
	if len(s.Parties) > 0 {
		b.WriteString(" between ")
		b.WriteString(strings.Join(s.Parties, " and "))
	}
	return b.String()
}

// Summary derives a document summary from its opening text, with no model.
func Summary(doc *document.Document) DocSummary {
	head := doc.Text
	if len(head) > 2000 {
		head = head[:2000]
	}
	return DocSummary{Title: strings.Join(strings.Fields(head), " ")}
}
