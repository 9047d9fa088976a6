package docs

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The documentation describes the product in the present tense: what pakton
// does, how to run it, what it measures with which command. A work diary —
// who did what, in which session or round, at what time of day, with issue
// numbers nobody outside can follow or paths to files outside the
// repository — does not belong in docs/, in code comments or in test
// messages. A decision is a record in docs/decisions/; a measurement of the
// past is an entry, with its commit and command, in docs/log/.

// diaryRule is one kind of work-diary wording.
type diaryRule struct {
	re  *regexp.Regexp
	why string
}

var diaryRules = []diaryRule{
	{regexp.MustCompile(`(?i)\bsessions? (\d+|one|two|three|four|five|six|seven|eight)\b`), "names a work session"},
	{regexp.MustCompile(`(?i)\b(this|that|last|previous|next|same|earlier|later|whole|first|second|third) session\b`), "names a work session"},
	{regexp.MustCompile(`(?i)\b(another|other|the|a|two|three|four|five|each|every)( other)? (helpers?|engineers?)\b`), "says who did the work"},
	{regexp.MustCompile("(?i)\\bhelper [`'\"(]"), "says who did the work"},
	{regexp.MustCompile(`(?i)(\bby the lead\b|\bfor the lead\b|\bthe lead's\b|\(lead\b|\blead\)|\bthe lead (ingested|measured|ran|read|wrote|landed|checked)\b)`), "says who did the work"},
	{regexp.MustCompile(`(?i)\b(hardening|this|last|previous|next|same) round\b`), "names a work round"},
	{regexp.MustCompile(`(?i)\b\d{1,2}:\d{2}(:\d{2})? ?(UTC|GMT|CET)\b|\b\d{1,2}:\d{2} ?[–-] ?\d{1,2}:\d{2}\b|\b(at|after|before|until|by) \d{1,2}:\d{2}\b`), "gives a clock time"},
	{regexp.MustCompile(`(?i)\b(today|yesterday|tonight|this morning|this afternoon|this evening)\b|\b(morning|afternoon|evening)\b`), "dates by the day's work, not by a commit"},
	{regexp.MustCompile(`(?i)\bissues? #?\d+`), "cites an issue number nobody outside can follow"},
	{regexp.MustCompile(`(^|[\s("'=\x60])/(work|tmp|home|root|mnt|scratch|Users)/`), "points at a path outside the repository"},
	{regexp.MustCompile(`(^|[^\w./-])notes/`), "points into notes/, which the repository no longer has"},
	{regexp.MustCompile(`\bI (read|wrote|measured|tried|ran|found|changed|chose|built|looked|kept|think|did|added|fixed|checked|saw)\b`), "is written in the first person of a diary"},
	{regexp.MustCompile(`(?i)\blanded (on|in|as|by|with|first|later|again|[0-9a-f]{7})\b|\(landed\b|\bthe freeze\b`), "tells the history of the work"},
	{regexp.MustCompile("(?i)\\bbranch [`'\"][a-z]"), "names a work branch"},
}

// diaryAllowed lists wording a rule would flag but that is not a diary:
// file (relative to the module root, slash-separated) → substrings of the
// flagged line that make it legitimate. Keep it small; rewrite instead.
var diaryAllowed = map[string][]string{
	// Chromium's own helper processes, not people.
	"internal/web/browser_test.go": {"helper processes"},
}

// diaryAllowedAnywhere are substrings that make a flagged line legitimate in
// any file: /home/me/ is the placeholder user of the configuration examples.
var diaryAllowedAnywhere = []string{"/home/me/"}

// TestNoWorkDiary fails on work-diary wording in docs/, README.md, code
// comments and test messages.
func TestNoWorkDiary(t *testing.T) {
	root := ".."
	var found []string
	report := func(file string, line int, text string) {
		for _, r := range diaryRules {
			m := r.re.FindString(text)
			if m == "" || allowedDiary(file, text) {
				continue
			}
			found = append(found, fmt.Sprintf("%s:%d: %q %s", file, line, strings.TrimSpace(m), r.why))
		}
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		switch {
		case strings.HasSuffix(name, ".md") && (strings.HasPrefix(rel, "docs/") || rel == "README.md"):
			return scanText(path, rel, report)
		case strings.HasSuffix(name, ".go"):
			return scanGo(path, rel, report)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(found)
	for _, f := range found {
		t.Error(f)
	}
	if len(found) > 0 {
		t.Logf("%d lines read as a work diary: describe the product in the present tense; a decision goes in docs/decisions/, a past measurement (with its commit and command) in docs/log/measurements.md", len(found))
	}
}

func allowedDiary(file, text string) bool {
	for _, s := range append(diaryAllowed[file], diaryAllowedAnywhere...) {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// scanText reports every line of a text file.
func scanText(path, rel string, report func(string, int, string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for n := 1; sc.Scan(); n++ {
		report(rel, n, sc.Text())
	}
	return sc.Err()
}

// testMessage are the testing.TB methods whose string arguments are a test's
// messages.
var testMessage = map[string]bool{"Error": true, "Errorf": true, "Fatal": true, "Fatalf": true, "Log": true, "Logf": true, "Skip": true, "Skipf": true}

// scanGo reports every comment line of a Go file and, in test files, the
// string literals of test messages.
func scanGo(path, rel string, report func(string, int, string)) error {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			line := fset.Position(c.Slash).Line
			for i, l := range strings.Split(c.Text, "\n") {
				report(rel, line+i, l)
			}
		}
	}
	if !strings.HasSuffix(rel, "_test.go") {
		return nil
	}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !testMessage[sel.Sel.Name] {
			return true
		}
		for _, a := range call.Args {
			if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					report(rel, fset.Position(lit.Pos()).Line, s)
				}
			}
		}
		return true
	})
	return nil
}

// TestDiaryRulesCatchDiaries keeps the rules honest: each line below is a
// diary line one rule must flag, and each clean line must pass.
func TestDiaryRulesCatchDiaries(t *testing.T) {
	diary := []string{
		"Measured in session 4 on the shared machine.",
		"the lead ingested the 100× corpus",
		"another helper's runs were beside it",
		"(helper `prune`, branch `prune`)",
		"Measured 09:25–09:40 UTC with load 6",
		"the hardening round 2 fixes",
		"re-measured this afternoon",
		"see issue 17 §3",
		"the store under /work/scale-data/x100",
		"PAKTON_SCALE_STORE=/tmp/x1 go test",
		"details in notes/scale.md",
		"I read the failures of the dev contracts",
		"landed on main as 3bc4cd4",
		"(landed 0c16e43, 060d9d6)",
		"four other engineers' builds",
	}
	clean := []string{
		"the parent's lead-in of 200 characters",
		"a round trip through the API",
		"each MCP session sees only its collection",
		"Chromium's helper processes",
		"the matcher's lead over the next provision",
		"PAKTON_SCALE_STORE=DIR go test ./internal/ingest/",
		"ARTICLE I > 1.1",
		"round robin among equals",
		"in case round 1 died before creating it",
		"the page scrolls to it if it landed out of sight",
		"--store /home/me/.local/share/pakton",
		"2026-11-26T10:00:00Z",
		"measured on commit 02e47bd with `pakton eval review --folds 4`",
	}
	flagged := func(s string) bool {
		for _, r := range diaryRules {
			if r.re.MatchString(s) && !allowedDiary("", s) {
				return true
			}
		}
		return false
	}
	for _, s := range diary {
		if !flagged(s) {
			t.Errorf("no rule flags the diary line %q", s)
		}
	}
	for _, s := range clean {
		if flagged(s) {
			t.Errorf("a rule flags the clean line %q", s)
		}
	}
}
