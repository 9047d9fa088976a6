// Package examples embeds pakton's sample contracts and questions, so the
// demo command and tests work from the binary alone. The agreements are
// fictional and written for this project; see README.md in this directory.
package examples

import (
	"embed"
	"strings"
)

// FS holds contracts/*.txt, *.md, *.html and *.docx, and questions.txt.
//
//go:embed contracts/*.txt contracts/*.md contracts/*.html contracts/*.docx questions.txt
var FS embed.FS

// Questions returns the sample questions, one per non-empty line of
// questions.txt.
func Questions() []string {
	data, err := FS.ReadFile("questions.txt")
	if err != nil {
		panic(err) // embedded at build time: cannot happen
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}
