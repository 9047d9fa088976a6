package export_test

import (
	"archive/zip"
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/export"
)

// TestModelCellRisksAndNotes: a model cell's risk answers and notes reach
// the XLSX Sources sheet and the HTML sources, escaped.
func TestModelCellRisksAndNotes(t *testing.T) {
	rv := fixture(t)
	var c *review.Cell
	for i := range rv.Table.Rows[0].Cells {
		if rv.Table.Rows[0].Cells[i].Found {
			c = &rv.Table.Rows[0].Cells[i]
			break
		}
	}
	c.Method = review.MethodModel
	c.Risks = []review.RiskAnswer{{Question: "Can it end <early>?", Answer: "Yes", Quotes: []detect.Extract{{Path: "9.2", Text: "may terminate"}}}}
	c.Notes = []string{"dropped a quotation the model gave that does not occur in the contract: \"<script>\""}

	var buf bytes.Buffer
	if err := export.XLSX(&buf, rv); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var sheet2 []byte
	for _, f := range zr.File {
		if f.Name == "xl/worksheets/sheet2.xml" {
			rc, _ := f.Open()
			sheet2, _ = io.ReadAll(rc)
			rc.Close()
		}
	}
	rows := cells(t, sheet2)
	head := rows[0]
	if n := len(head); n < 2 || head[n-2] != "Risk answers" || head[n-1] != "Model notes" {
		t.Fatalf("Sources header = %v", head)
	}
	var hit bool
	for _, r := range rows[1:] {
		if len(r) == len(head) && r[len(head)-2] == "Can it end <early>? — Yes" && strings.Contains(r[len(head)-1], `"<script>"`) {
			hit = true
		}
	}
	if !hit {
		t.Errorf("no Sources row carries the risk answer and the note")
	}

	buf.Reset()
	if err := export.HTML(&buf, rv); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{"Can it end &lt;early&gt;?", "<b>Yes</b>", "“may terminate” (9.2,", "Note: dropped a quotation", "&lt;script&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if strings.Contains(page, `"<script>"`) {
		t.Error("a note reached the HTML unescaped")
	}
}
