// Package playbook is the playbook format of a review: a checklist of
// provisions (what each is, its questions, keywords, examples, answer
// format, risks and polarity), read from YAML with every field checked and
// bounded (ParsePlaybook, the Max limits). It knows nothing of contracts,
// detectors or runs; internal/review runs a playbook over a deal room.
package playbook

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// AnswerFormat says what kind of answer a provision or risk question has.
type AnswerFormat string

// Answer formats a playbook may name.
const (
	AnswerYesNo        AnswerFormat = "yes_no"       // found → "Yes"
	AnswerDate         AnswerFormat = "date"         // an ISO date read from the text
	AnswerEndDate      AnswerFormat = "end_date"     // the date a term ends: written, or its start plus its length
	AnswerDuration     AnswerFormat = "duration"     // "3 years", "30 days", or "perpetual"
	AnswerJurisdiction AnswerFormat = "jurisdiction" // a US state, province or country
	AnswerParty        AnswerFormat = "party"        // names of parties
	AnswerAmount       AnswerFormat = "amount"       // a sum of money or a percentage
	AnswerText         AnswerFormat = "text"         // the extract itself
	// AnswerConsideration is what a merger pays for each share: "Cash",
	// "Stock" or "Cash and stock", with the amounts as written.
	AnswerConsideration AnswerFormat = "consideration"
	// AnswerCarveOuts is a definition or clause with the exceptions it
	// lists (a Material Adverse Effect definition's carve-outs): the cell
	// shows the whole clause, the answer lists the exceptions.
	AnswerCarveOuts AnswerFormat = "carve_outs"
)

// AnswerFormats lists the answer formats, in the order messages name them.
var AnswerFormats = []AnswerFormat{AnswerYesNo, AnswerDate, AnswerEndDate, AnswerDuration, AnswerJurisdiction, AnswerParty, AnswerAmount, AnswerText, AnswerConsideration, AnswerCarveOuts}

// Playbook is a checklist of provisions to look for in every contract.
type Playbook struct {
	Name        string      `yaml:"name" json:"name"`
	Version     string      `yaml:"version" json:"version,omitempty"`
	Description string      `yaml:"description" json:"description,omitempty"`
	Attribution string      `yaml:"attribution" json:"attribution,omitempty"`
	Provisions  []Provision `yaml:"provisions" json:"provisions"`
	// Source is the file the playbook was read from ("builtin" for the
	// shipped one).
	Source string `yaml:"-" json:"source,omitempty"`

	// all holds the provisions of the playbook a Select was made from, so
	// that what a provision is not (Excluded) does not depend on which
	// provisions were selected.
	all []Provision
}

// Provision is one entry of a playbook.
type Provision struct {
	Name  string `yaml:"name" json:"name"`
	Group string `yaml:"group" json:"group,omitempty"`
	// Definition says what the provision is; Excludes what it is not
	// (Effective Date is not the date the agreement was signed).
	Definition string    `yaml:"definition" json:"definition"`
	Excludes   string    `yaml:"excludes" json:"excludes,omitempty"`
	Questions  []string  `yaml:"questions" json:"questions,omitempty"`
	Keywords   []Keyword `yaml:"keywords" json:"keywords,omitempty"`
	// Examples are clauses that hold the provision (a clause bank).
	Examples []string     `yaml:"examples" json:"examples,omitempty"`
	Answer   AnswerFormat `yaml:"answer" json:"answer"`
	Risks    []Risk       `yaml:"risks" json:"risks,omitempty"`
	// Detector names the trained detector to use (default: the provision's
	// name); "none" forces the zero-shot scorer.
	Detector string `yaml:"detector" json:"detector,omitempty"`
	// Polarity says how a yes/no provision is written, so that a clause
	// that excludes it is read as No (internal/review/answer/polarity.go): "right" (a right or
	// obligation, written positively: "may terminate for convenience"),
	// "restriction" (written as a prohibition: "shall not compete"),
	// "relief" (relieves a party: "is not liable for indirect damages"),
	// "exception" (an exception to a restriction: "nothing in Section 8
	// prevents …"). Default: "right" or "restriction", told by the
	// examples.
	Polarity Polarity `yaml:"polarity" json:"polarity,omitempty"`

	line int // where the provision starts in its file, for errors
}

// Polarity is how a yes/no provision is written (Provision.Polarity).
type Polarity string

// The polarities a playbook may name.
const (
	PolarityRight       Polarity = "right"
	PolarityRestriction Polarity = "restriction"
	PolarityRelief      Polarity = "relief"
	PolarityException   Polarity = "exception"
)

var polarities = []Polarity{PolarityRight, PolarityRestriction, PolarityRelief, PolarityException}

// Keyword is a word or phrase that signals a provision, after Addleshaw
// Goddard's keyword lists: optionally only when one of Near appears within
// Within words of it, and weighted by Boost.
type Keyword struct {
	Text   string   `yaml:"text" json:"text"`
	Near   []string `yaml:"near" json:"near,omitempty"`
	Within int      `yaml:"within" json:"within,omitempty"` // words; default 12 when Near is set
	Boost  float64  `yaml:"boost" json:"boost,omitempty"`   // default 1
}

// Risk is a question asked of a found provision, with its answer format.
type Risk struct {
	Question string       `yaml:"question" json:"question"`
	Answer   AnswerFormat `yaml:"answer" json:"answer"`
}

// UnmarshalYAML accepts a keyword written as a plain string or as a mapping.
func (k *Keyword) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		k.Text = n.Value
		return nil
	}
	if err := checkKeys(n, "keyword", "text", "near", "within", "boost"); err != nil {
		return err
	}
	type plain Keyword
	return n.Decode((*plain)(k))
}

// UnmarshalYAML decodes a provision, refusing unknown fields and keeping the
// line it starts on.
func (p *Provision) UnmarshalYAML(n *yaml.Node) error {
	if err := checkKeys(n, "provision", "name", "group", "definition", "excludes", "questions", "keywords", "examples", "answer", "risks", "detector", "polarity"); err != nil {
		return err
	}
	type plain Provision
	if err := n.Decode((*plain)(p)); err != nil {
		return err
	}
	p.line = n.Line
	return nil
}

// UnmarshalYAML decodes a risk question, written as a plain string (a yes/no
// question) or as a mapping.
func (r *Risk) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		r.Question, r.Answer = n.Value, AnswerYesNo
		return nil
	}
	if err := checkKeys(n, "risk", "question", "answer"); err != nil {
		return err
	}
	type plain Risk
	return n.Decode((*plain)(r))
}

// fieldError is a playbook mistake at a line.
type fieldError struct {
	line int
	msg  string
}

func (e *fieldError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

func checkKeys(n *yaml.Node, what string, known ...string) error {
	if n.Kind != yaml.MappingNode {
		return &fieldError{n.Line, fmt.Sprintf("a %s must be a mapping of fields (%s)", what, strings.Join(known, ", "))}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !slices.Contains(known, k.Value) {
			return &fieldError{k.Line, fmt.Sprintf("unknown %s field %q (known: %s)", what, k.Value, strings.Join(known, ", "))}
		}
	}
	return nil
}

// ErrPlaybook marks every playbook parsing or validation error.
var ErrPlaybook = errors.New("invalid playbook")

// Limits on a playbook. A playbook is user input on every face (a file for
// the CLI, a request body for the API and MCP), and what a review costs
// grows with it: each keyword is looked for in every passage of every
// contract, each risk is a model call per found cell. The limits are far
// above what a real playbook needs (the built-in one: 91 KB, 51 provisions,
// at most 12 keywords of a provision, 10 near words, within 15) and stop a
// playbook from holding the server hostage. ParsePlaybook refuses a
// playbook past any of them with an error naming the field.
const (
	MaxPlaybookBytes = 1 << 20 // the YAML text
	MaxProvisions    = 200
	MaxKeywords      = 100 // of one provision
	MaxNear          = 50  // near words of one keyword
	MaxWithin        = 1000
	MaxBoost         = 100
	MaxExamples      = 50 // of one provision
	MaxQuestions     = 50 // of one provision
	MaxRisks         = 20 // of one provision
)

// LoadPlaybook reads and validates a playbook file.
func LoadPlaybook(path string) (*Playbook, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("playbook %s: %w", path, err)
	}
	return ParsePlaybook(path, data)
}

// ParsePlaybook parses and validates a playbook; name is used in errors.
// Errors name the file, the line and the field at fault, and wrap
// ErrPlaybook.
func ParsePlaybook(name string, data []byte) (*Playbook, error) {
	fail := func(line int, format string, args ...any) error {
		return fmt.Errorf("playbook %s: line %d: %s: %w", name, line, fmt.Sprintf(format, args...), ErrPlaybook)
	}
	if len(data) > MaxPlaybookBytes {
		return nil, fmt.Errorf("playbook %s: %d bytes, more than the %d a playbook may hold: %w", name, len(data), MaxPlaybookBytes, ErrPlaybook)
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("playbook %s: empty file: %w", name, ErrPlaybook)
		}
		return nil, fmt.Errorf("playbook %s: %s: %w", name, yamlMessage(err), ErrPlaybook)
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("playbook %s: empty file: %w", name, ErrPlaybook)
	}
	// An alias (*name) is expanded anew wherever it is used, and each
	// provision is decoded by its own decoder, so yaml.v3's guard against
	// alias expansion never sees the whole: 300,000 aliases of one anchored
	// provision in a 940 KB file made gigabytes. A playbook needs none.
	if line, ok := findAlias(&root); ok {
		return nil, fail(line, "YAML aliases (*name) are not allowed in a playbook; write each provision out")
	}
	doc := root.Content[0]
	if err := checkKeys(doc, "playbook", "name", "version", "description", "attribution", "provisions"); err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			return nil, fail(fe.line, "%s", fe.msg)
		}
		return nil, err
	}
	var pb Playbook
	if err := doc.Decode(&pb); err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			return nil, fail(fe.line, "%s", fe.msg)
		}
		return nil, fmt.Errorf("playbook %s: %s: %w", name, yamlMessage(err), ErrPlaybook)
	}
	pb.Source = name
	if strings.TrimSpace(pb.Name) == "" {
		pb.Name = strings.TrimSuffix(baseName(name), ".yaml")
	}
	if len(pb.Provisions) == 0 {
		return nil, fail(doc.Line, "field \"provisions\": the playbook lists no provisions")
	}
	if len(pb.Provisions) > MaxProvisions {
		return nil, fail(doc.Line, "field \"provisions\": %d provisions, more than the %d a playbook may list", len(pb.Provisions), MaxProvisions)
	}
	seen := map[string]int{}
	for i := range pb.Provisions {
		p := &pb.Provisions[i]
		p.Name = strings.TrimSpace(p.Name)
		if p.Name == "" {
			return nil, fail(p.line, "provision %d: field \"name\" is missing", i+1)
		}
		key := strings.ToLower(p.Name)
		if prev, dup := seen[key]; dup {
			return nil, fail(p.line, "provision %q: field \"name\" repeats the provision at line %d", p.Name, prev)
		}
		seen[key] = p.line
		if strings.TrimSpace(p.Definition) == "" && len(p.Keywords) == 0 && len(p.Examples) == 0 {
			return nil, fail(p.line, "provision %q: field \"definition\" is missing (a provision needs a definition, keywords or examples to be found)", p.Name)
		}
		if p.Answer == "" {
			p.Answer = AnswerText
		}
		if !slices.Contains(AnswerFormats, p.Answer) {
			return nil, fail(p.line, "provision %q: field \"answer\": unknown answer format %q (known: %s)", p.Name, p.Answer, formatList())
		}
		if p.Polarity != "" {
			if !slices.Contains(polarities, p.Polarity) {
				return nil, fail(p.line, "provision %q: field \"polarity\": unknown polarity %q (known: right, restriction, relief, exception)", p.Name, p.Polarity)
			}
			if p.Answer != AnswerYesNo {
				return nil, fail(p.line, "provision %q: field \"polarity\": only a yes_no provision has a polarity (its answer is %s)", p.Name, p.Answer)
			}
		}
		for _, c := range []struct {
			field  string
			n, max int
		}{{"keywords", len(p.Keywords), MaxKeywords}, {"examples", len(p.Examples), MaxExamples},
			{"questions", len(p.Questions), MaxQuestions}, {"risks", len(p.Risks), MaxRisks}} {
			if c.n > c.max {
				return nil, fail(p.line, "provision %q: field %q: %d entries, more than the %d a provision may have", p.Name, c.field, c.n, c.max)
			}
		}
		for j := range p.Keywords {
			k := &p.Keywords[j]
			k.Text = strings.TrimSpace(k.Text)
			if k.Text == "" {
				return nil, fail(p.line, "provision %q: field \"keywords\": keyword %d is empty", p.Name, j+1)
			}
			if k.Within < 0 || k.Boost < 0 {
				return nil, fail(p.line, "provision %q: field \"keywords\": keyword %q: within and boost must not be negative", p.Name, k.Text)
			}
			if k.Within > MaxWithin {
				return nil, fail(p.line, "provision %q: field \"within\" of keyword %q: %d words, more than %d", p.Name, k.Text, k.Within, MaxWithin)
			}
			if math.IsNaN(k.Boost) || k.Boost > MaxBoost {
				return nil, fail(p.line, "provision %q: field \"boost\" of keyword %q: %v, want a number from 0 to %d", p.Name, k.Text, k.Boost, MaxBoost)
			}
			if len(k.Near) > MaxNear {
				return nil, fail(p.line, "provision %q: field \"near\" of keyword %q: %d words, more than %d", p.Name, k.Text, len(k.Near), MaxNear)
			}
			if k.Boost == 0 {
				k.Boost = 1
			}
			if len(k.Near) > 0 && k.Within == 0 {
				k.Within = 12
			}
		}
		for j := range p.Risks {
			r := &p.Risks[j]
			if strings.TrimSpace(r.Question) == "" {
				return nil, fail(p.line, "provision %q: field \"risks\": risk %d has no question", p.Name, j+1)
			}
			if r.Answer == "" {
				r.Answer = AnswerYesNo
			}
			if !slices.Contains(AnswerFormats, r.Answer) {
				return nil, fail(p.line, "provision %q: field \"risks\": unknown answer format %q (known: %s)", p.Name, r.Answer, formatList())
			}
		}
	}
	return &pb, nil
}

// Provision returns the provision with a name (case-insensitive), or nil.
func (pb *Playbook) Provision(name string) *Provision {
	for i := range pb.Provisions {
		if strings.EqualFold(pb.Provisions[i].Name, name) {
			return &pb.Provisions[i]
		}
	}
	return nil
}

// Qualified returns the provisions p's Definition names (by name,
// case-insensitively), as Excluded does for Excludes: the clauses p
// qualifies ("An exception to a non-compete, exclusivity or customer
// non-solicit …" names Non-Compete and Exclusivity).
func (pb *Playbook) Qualified(p *Provision) []*Provision {
	return pb.named(p, p.Definition)
}

// Excluded returns the provisions p's Excludes names (by name, case-insensitively):
// the neighbouring provisions the playbook says p is not ("not an exclusion
// of indirect or consequential damages … (see Exclusion of Consequential
// Damages)"). After a Select they are looked for among the provisions of
// the playbook selected from, so that a provision read alone reads as it
// does beside the others.
func (pb *Playbook) Excluded(p *Provision) []*Provision {
	return pb.named(p, p.Excludes)
}

// named returns the provisions other than p whose names text holds as
// words of their own, looked for in the playbook selected from.
func (pb *Playbook) named(p *Provision, text string) []*Provision {
	ex := strings.ToLower(text)
	if ex == "" {
		return nil
	}
	all := pb.all
	if all == nil {
		all = pb.Provisions
	}
	var out []*Provision
	for i := range all {
		n := &all[i]
		if !strings.EqualFold(n.Name, p.Name) && namesWord(ex, strings.ToLower(n.Name)) {
			out = append(out, n)
		}
	}
	return out
}

// namesWord reports whether text holds name as words of its own, not
// inside a longer word ("Insurance" in "reinsurance" does not count).
func namesWord(text, name string) bool {
	if name == "" {
		return false
	}
	for from := 0; ; {
		k := strings.Index(text[from:], name)
		if k < 0 {
			return false
		}
		lo, hi := from+k, from+k+len(name)
		if (lo == 0 || !isLetter(text[lo-1])) && (hi == len(text) || !isLetter(text[hi])) {
			return true
		}
		from = lo + 1
	}
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80 }

// Names returns the provision names in playbook order.
func (pb *Playbook) Names() []string {
	out := make([]string, len(pb.Provisions))
	for i, p := range pb.Provisions {
		out[i] = p.Name
	}
	return out
}

// Select returns a copy of the playbook restricted to the named provisions
// (case-insensitive), in the playbook's order; unknown names are an error.
func (pb *Playbook) Select(names []string) (*Playbook, error) {
	if len(names) == 0 {
		return pb, nil
	}
	out := *pb
	out.Provisions = nil
	if out.all == nil {
		out.all = pb.Provisions
	}
	for _, n := range names {
		if pb.Provision(n) == nil {
			return nil, fmt.Errorf("playbook %s has no provision %q (see \"pakton review --list\")", pb.Name, n)
		}
	}
	for _, p := range pb.Provisions {
		for _, n := range names {
			if strings.EqualFold(p.Name, n) {
				out.Provisions = append(out.Provisions, p)
				break
			}
		}
	}
	return &out, nil
}

func formatList() string {
	var s []string
	for _, f := range AnswerFormats {
		s = append(s, string(f))
	}
	return strings.Join(s, ", ")
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// findAlias returns the line of the first alias node under n.
func findAlias(n *yaml.Node) (int, bool) {
	if n.Kind == yaml.AliasNode {
		return n.Line, true
	}
	for _, c := range n.Content {
		if line, ok := findAlias(c); ok {
			return line, true
		}
	}
	return 0, false
}

// yamlMessage shortens yaml.v3's errors ("yaml: line 3: …") to "line 3: …".
func yamlMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n  ")
	if strings.HasPrefix(msg, "line ") {
		return msg
	}
	if _, err := strconv.Atoi(msg); err == nil {
		return "line " + msg
	}
	return msg
}

// LabelName is the name a provision's labels go by: its detector's name
// when the playbook gives one, else its own.
func (p *Provision) LabelName() string {
	if p.Detector != "" && !strings.EqualFold(p.Detector, "none") {
		return p.Detector
	}
	return p.Name
}
