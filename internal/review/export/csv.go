package export

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
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
	head := []string{"Contract", "File", "Document ID", "Error"}
	for _, p := range rv.Table.Provisions {
		head = append(head, p)
		for _, c := range csvColumns {
			head = append(head, p+" ("+c+")")
		}
	}
	if err := writeSafe(cw, head); err != nil {
		return err
	}
	err := rv.eachRow(func(_ int, row *review.Row) error {
		rec := []string{contractName(row), row.DocName, row.DocID, row.Error}
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
		return writeSafe(cw, rec)
	})
	if err != nil {
		return err
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
	if rv.Row != nil && rv.Table.Rows != nil { // (nil rows encode as null)
		return streamJSON(w, rv, ds)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(jsonReview{Title: rv.title(), Collection: rv.Collection, Created: rv.Created, Table: rv.Table, Decisions: ds})
}

// streamJSON writes what JSON writes, taking the rows one at a time from
// rv.Row: the review without its rows is encoded, and the rows are written
// in the place of its empty list, each indented as the encoder would.
func streamJSON(w io.Writer, rv *Review, ds review.Decisions) error {
	head := *rv.Table
	head.Rows = []review.Row{}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(jsonReview{Title: rv.title(), Collection: rv.Collection, Created: rv.Created, Table: &head, Decisions: ds}); err != nil {
		return err
	}
	// The first `"rows": []` is the table's: nothing before it holds a
	// list of rows, and a string cannot hold an unescaped quote.
	const empty = `"rows": []`
	b := buf.Bytes()
	at := bytes.Index(b, []byte(empty))
	if at < 0 {
		return errors.New("export: no rows in the encoded review")
	}
	const indent = "      " // a row is at depth 3: review, table, rows
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.Write(b[:at])
	bw.WriteString(`"rows": [`)
	err := rv.eachRow(func(i int, row *review.Row) error {
		rb, err := json.MarshalIndent(row, indent, "  ")
		if err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n" + indent)
		bw.Write(rb)
		return nil
	})
	if err != nil {
		return err
	}
	if len(rv.Table.Rows) > 0 {
		bw.WriteString("\n    ")
	}
	bw.WriteByte(']')
	bw.Write(b[at+len(empty):])
	return bw.Flush()
}

// contractName is how a row's contract is named: as people name it (title,
// parties, date), or its file when nothing was learnt.
func contractName(row *review.Row) string {
	if row.DocTitle != "" {
		return row.DocTitle
	}
	return row.DocName
}
