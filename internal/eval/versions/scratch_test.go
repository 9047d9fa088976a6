package versions

import (
	"fmt"
	"os"
	"testing"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/compare"
	"github.com/pakton/pakton/internal/document"
)

func TestScratchReflow(t *testing.T) {
	if os.Getenv("SCRATCH") == "" {
		t.Skip()
	}
	_, held := corpus(t)
	n := 0
	for _, p := range Build(held, 2) {
		if p.Kind != "reflow" {
			continue
		}
		da, db := &document.Document{Text: p.A}, &document.Document{Text: p.B}
		r := compare.Compare(compare.Side{Doc: db, Tree: clause.Parse(db)}, compare.Side{Doc: da, Tree: clause.Parse(da)}, compare.Options{})
		for _, c := range r.Changed {
			var ops []string
			for _, o := range c.Diff {
				if o.Op != "=" {
					ops = append(ops, o.Op+"["+o.Text+"]")
				}
			}
			if n++; n < 30 {
				fmt.Println(p.From[:20], c.Template.Path, ops)
			}
		}
		for _, c := range r.Missing {
			if n++; n < 30 {
				fmt.Println(p.From[:20], "missing", c.Path)
			}
		}
	}
}
