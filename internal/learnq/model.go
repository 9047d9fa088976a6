package learnq

import (
	"bufio"
	_ "embed"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/search/index"
)

// The shipped model: learnt from the questions of LegalBench-RAG's four
// development sets (CUAD, ContractNLI, MAUD dev, PrivacyQA dev), every
// labelled document at once, by
//
//	pakton eval legalbench -q --learn-write internal/learnq/builtin.model
//
// (run from the repository root: go generate ./internal/learnq). Searches
// add its words (search.Models.Learnt) unless search.Stages.NoLearnt.
//
//go:generate sh -c "cd ../.. && go run ./cmd/pakton eval legalbench -q --learn-write internal/learnq/builtin.model"
//go:embed builtin.model
var builtinModel string

var builtin = sync.OnceValue(func() *Model {
	m, err := Read(strings.NewReader(builtinModel))
	if err != nil {
		panic("learnq: the shipped model does not read: " + err.Error())
	}
	return m
})

// Builtin is the shipped model (builtin.model).
func Builtin() *Model { return builtin() }

// BuiltinText is the shipped model as written (Write), for tests that
// regenerate it.
func BuiltinText() string { return builtinModel }

const (
	header  = "pakton-learnq 1"
	headTag = "#" // index.HeadMark as written
)

// Write writes the model as text: a header line, then one line a question
// group ("g", its terms, then word and weight pairs) and one a question word
// ("w", the word, then pairs), tab-separated, words sorted; a heading word
// is written with a leading "#". Weights are written exactly, so a model
// read back expands questions as the one written.
func (m *Model) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, header)
	var err error
	line := func(kind string, key string, ws []search.Weighted) {
		if err != nil {
			return
		}
		fields := []string{kind, key}
		for _, x := range ws {
			t, e := encodeTerm(x.Term)
			if e != nil {
				err = e
				return
			}
			fields = append(fields, t+" "+strconv.FormatFloat(x.Weight, 'g', -1, 64))
		}
		fmt.Fprintln(bw, strings.Join(fields, "\t"))
	}
	for _, g := range m.groups {
		ts := make([]string, len(g.terms))
		for i, t := range g.terms {
			if ts[i], err = encodeTerm(t); err != nil {
				return err
			}
		}
		line("g", strings.Join(ts, " "), g.words)
	}
	words := make([]string, 0, len(m.words))
	for t := range m.words {
		words = append(words, t)
	}
	sort.Strings(words)
	for _, t := range words {
		k, e := encodeTerm(t)
		if e != nil {
			return e
		}
		line("w", k, m.words[t])
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

func encodeTerm(t string) (string, error) {
	if strings.ContainsAny(t, " \t\n"+headTag) || t == "" {
		return "", fmt.Errorf("learnq: term %q cannot be written", t)
	}
	if index.IsHeadTerm(t) {
		return headTag + strings.TrimPrefix(t, index.HeadMark), nil
	}
	return t, nil
}

func decodeTerm(t string) string {
	if rest, ok := strings.CutPrefix(t, headTag); ok {
		return index.HeadMark + rest
	}
	return t
}

// Read reads a model written by Write.
func Read(r io.Reader) (*Model, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	if !sc.Scan() || sc.Text() != header {
		return nil, fmt.Errorf("learnq: not a model (want the header %q)", header)
	}
	m := &Model{words: map[string][]search.Weighted{}}
	n := 1
	for sc.Scan() {
		n++
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 3 {
			return nil, fmt.Errorf("learnq: line %d: want a kind, a key and words", n)
		}
		ws := make([]search.Weighted, 0, len(f)-2)
		for _, p := range f[2:] {
			t, wt, ok := strings.Cut(p, " ")
			x, err := strconv.ParseFloat(wt, 64)
			if !ok || err != nil {
				return nil, fmt.Errorf("learnq: line %d: %q is not a word and its weight", n, p)
			}
			ws = append(ws, search.Weighted{Term: decodeTerm(t), Weight: x})
		}
		switch f[0] {
		case "g":
			ts := strings.Fields(f[1])
			for i := range ts {
				ts[i] = decodeTerm(ts[i])
			}
			if !slices.IsSorted(ts) {
				return nil, fmt.Errorf("learnq: line %d: a group's terms are not sorted", n)
			}
			m.groups = append(m.groups, group{terms: ts, words: ws})
		case "w":
			m.words[decodeTerm(f[1])] = ws
		default:
			return nil, fmt.Errorf("learnq: line %d: unknown kind %q", n, f[0])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return m, nil
}
