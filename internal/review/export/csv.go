package export

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"time"

	"github.com/pakton/pakton/internal/review"
)

// csvColumns are the columns of one provision in the CSV, after the
// provision's own (the answer).
var csvColumns = []string{"extract", "confidence", "clause path", "page", "span", "answer span", "decision"}

// CSV writes one row per contract: the contract's name, id and error, then
// eight columns per provision — the answer ("Yes", "No", "Conditional:
// <condition>", a value, "Found" or "Not found", with the reviewer's
// correction applied), the extract (or the corrected text), the
// confidence, where the answer is (clause paths, pages, the extracts'
// spans and the answer's own spans, in code points of the contract's
// text, "[start,end)"), and the reviewer's verdict ("accepted",
// "rejected", "corrected"; empty when nobody reviewed the cell).
func CSV(w io.Writer, rv *Review) error {
	cw := csv.NewWriter(w)
	head := []string{"Contract", "Document ID", "Error"}
	for _, p := range rv.Table.Provisions {
		head = append(head, p)
		for _, c := range csvColumns {
			head = append(head, p+" ("+c+")")
		}
	}
	if err := writeSafe(cw, head); err != nil {
		return err
	}
	for i := range rv.Table.Rows {
		row := &rv.Table.Rows[i]
		rec := []string{row.DocName, row.DocID, row.Error}
		for _, p := range rv.Table.Provisions {
			c := cellOf(row, p)
			if c == nil {
				rec = append(rec, make([]string, 1+len(csvColumns))...)
				continue
			}
			a := answerOf(c, rv.Decisions.Find(row.DocID, p))
			paths, pgs, spans, answerSpans := located(c, a)
			rec = append(rec, a.Line, a.Text, confidence(c.Confidence), paths, pgs, spans, answerSpans, string(a.Verdict))
		}
		if err := writeSafe(cw, rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// cellOf returns a row's cell for a provision, or nil (a row whose document
// could not be read has none).
func cellOf(row *review.Row, provision string) *review.Cell {
	for i := range row.Cells {
		if row.Cells[i].Provision == provision {
			return &row.Cells[i]
		}
	}
	return nil
}

// jsonReview is the JSON export.
type jsonReview struct {
	Title      string           `json:"title"`
	Collection string           `json:"collection,omitempty"`
	Created    time.Time        `json:"created,omitzero"`
	Table      *review.Table    `json:"table"`
	Decisions  review.Decisions `json:"decisions"`
}

// JSON writes the table and the decisions.
func JSON(w io.Writer, rv *Review) error {
	ds := rv.Decisions
	if ds == nil {
		ds = review.Decisions{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(jsonReview{Title: rv.title(), Collection: rv.Collection, Created: rv.Created, Table: rv.Table, Decisions: ds})
}
