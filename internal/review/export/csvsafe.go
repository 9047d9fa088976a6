package export

import (
	"encoding/csv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A CSV file is opened by a spreadsheet, which reads a cell that starts
// with "=", "+", "-" or "@" as a formula: "=HYPERLINK(…)" in a clause, a
// document name or a reviewer's correction would run when the reviewer
// opens the export ("CSV injection"). As OWASP recommends, such a cell is
// written with a single quote before it, which spreadsheets show as text;
// so is a cell starting with a tab or a line break (which some
// spreadsheets skip before reading a formula), and one whose first visible
// character is a formula character after white space, or a full-width
// equals or plus sign. Every other cell is written as it is. (XLSX cells
// are written as inline strings, never formulas, and HTML is escaped: they
// need nothing.)

// formulaStart reports whether a spreadsheet could read s as a formula.
func formulaStart(s string) bool {
	if s == "" {
		return false
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r', '\n':
		return true
	}
	t := strings.TrimLeftFunc(s, unicode.IsSpace)
	r, _ := utf8.DecodeRuneInString(t)
	switch r {
	case '=', '+', '-', '@', '＝', '＋', '－', '＠':
		return true
	}
	return false
}

// safeCell returns s neutralised for a spreadsheet.
func safeCell(s string) string {
	if formulaStart(s) {
		return "'" + s
	}
	return s
}

// writeSafe writes one CSV record with every cell neutralised.
func writeSafe(cw *csv.Writer, rec []string) error {
	out := make([]string, len(rec))
	for i, s := range rec {
		out[i] = safeCell(s)
	}
	return cw.Write(out)
}
