package review

import (
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/review/playbook"
)

// TestBuiltinPlaybookComplete checks that every built-in provision can be
// found without labels: a definition, at least three keywords, at least two
// example clauses and a known answer format.
func TestBuiltinPlaybookComplete(t *testing.T) {
	pb, _ := Builtin()
	if pb.Version == "" || pb.Attribution == "" || pb.Description == "" {
		t.Errorf("built-in playbook lacks version, description or attribution: %q %q %q", pb.Version, pb.Description, pb.Attribution)
	}
	for _, p := range pb.Provisions {
		if strings.TrimSpace(p.Definition) == "" {
			t.Errorf("%s: no definition", p.Name)
		}
		if strings.TrimSpace(p.Excludes) == "" {
			t.Errorf("%s: no excludes", p.Name)
		}
		if p.Group == "" {
			t.Errorf("%s: no group", p.Name)
		}
		if len(p.Questions) == 0 {
			t.Errorf("%s: no questions", p.Name)
		}
		if len(p.Keywords) < 3 {
			t.Errorf("%s: %d keywords, want at least 3", p.Name, len(p.Keywords))
		}
		if len(p.Examples) < 2 {
			t.Errorf("%s: %d examples, want at least 2", p.Name, len(p.Examples))
		}
		if !slices.Contains(playbook.AnswerFormats, p.Answer) {
			t.Errorf("%s: answer format %q", p.Name, p.Answer)
		}
		for _, r := range p.Risks {
			if !slices.Contains(playbook.AnswerFormats, r.Answer) {
				t.Errorf("%s: risk %q: answer format %q", p.Name, r.Question, r.Answer)
			}
		}
	}
}

// TestBuiltinPlaybookCoversCUAD checks that the 41 CUAD categories are in
// the built-in playbook under CUAD's own names, so detectors trained on
// CUAD-style labels match them.
func TestBuiltinPlaybookCoversCUAD(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "data", "cuad", "category_descriptions.csv")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("CUAD category list not found at %s", path)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	pb, _ := Builtin()
	var n int
	for _, row := range rows[1:] {
		name, ok := strings.CutPrefix(strings.TrimSpace(row[0]), "Category: ")
		if !ok {
			t.Fatalf("%s: unexpected first column %q", path, row[0])
		}
		n++
		p := pb.Provision(name)
		if p == nil {
			t.Errorf("CUAD category %q is not in the built-in playbook", name)
			continue
		}
		if p.Name != name {
			t.Errorf("CUAD category %q is spelt %q in the built-in playbook", name, p.Name)
		}
	}
	if n != 41 {
		t.Errorf("%s lists %d categories, want 41", path, n)
	}
}

// TestExamplePlaybooksParse checks the playbooks shipped in
// examples/playbooks.
func TestExamplePlaybooksParse(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "playbooks", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no example playbooks in examples/playbooks")
	}
	for _, f := range files {
		pb, err := playbook.LoadPlaybook(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if _, err := NewReviewer(pb, nil); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// FuzzParsePlaybook checks that no input makes the playbook parser panic,
// that every refusal wraps ErrPlaybook and names the file, and that every
// accepted playbook is valid (named provisions, known answer formats).
func FuzzParsePlaybook(f *testing.F) {
	if ex, err := os.ReadFile(filepath.Join("..", "..", "examples", "playbooks", "ma-change-of-control.yaml")); err == nil {
		f.Add(ex)
	}
	f.Add([]byte("provisions:\n  - name: A\n    keywords: [x, {text: y, near: [z], within: 3, boost: 2}]\n    risks: [q, {question: r, answer: amount}]\n"))
	f.Add([]byte("provisions: [\n"))
	f.Add([]byte("name: [1, 2]\nprovisions: {}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pb, err := playbook.ParsePlaybook("fuzz.yaml", data)
		if err != nil {
			if !errors.Is(err, playbook.ErrPlaybook) || !strings.Contains(err.Error(), "fuzz.yaml") {
				t.Fatalf("error %q does not wrap ErrPlaybook or name the file", err)
			}
			return
		}
		if len(pb.Provisions) == 0 {
			t.Fatal("accepted a playbook without provisions")
		}
		for _, p := range pb.Provisions {
			if p.Name == "" || !slices.Contains(playbook.AnswerFormats, p.Answer) {
				t.Fatalf("accepted provision %+v", p)
			}
			for _, k := range p.Keywords {
				if k.Text == "" || k.Boost <= 0 || k.Within < 0 {
					t.Fatalf("accepted keyword %+v", k)
				}
			}
		}
	})
}

// TestDocsPlaybookExamplesParse keeps docs/PLAYBOOKS.md honest: every YAML
// block in it that holds a playbook (a "provisions:" key) must parse.
func TestDocsPlaybookExamplesParse(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "PLAYBOOKS.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(data), "```yaml\n")
	var n int
	for _, b := range blocks[1:] {
		b, _, _ = strings.Cut(b, "```")
		if !strings.Contains(b, "provisions:") {
			continue
		}
		n++
		_, err := playbook.ParsePlaybook(path, []byte(b))
		if err != nil {
			t.Errorf("example %d: %v", n, err)
			continue
		}
	}
	if n == 0 {
		t.Errorf("%s has no example playbook", path)
	}
}
