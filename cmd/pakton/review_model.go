package main

import (
	"fmt"

	"github.com/pakton/pakton/internal/review/modelpass"
)

// cellProgress names a cell the model pass answered, for the progress
// line: a contract takes minutes of model calls, and this shows movement.
func cellProgress(c modelpass.CellProgress) string {
	how := "model"
	if c.Cached {
		how = "cached"
	}
	return fmt.Sprintf("%s: %s (%s, %d/%d)", c.Doc, c.Provision, how, c.Done, c.Total)
}
