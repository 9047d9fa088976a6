package search

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/names"
	"github.com/pakton/pakton/internal/search/index"
)

// displayTexts are contracts whose names Learn reads: a title, parties, a date.
var displayTexts = map[string]string{
	"supply":  "SUPPLY AGREEMENT\n\nThis Supply Agreement is made on 3 March 2010 between Acme Widgets Inc. (\"Acme\") and Beta Foods LLC (\"Beta\").\n\n1. Supply. Acme shall supply the products.",
	"licence": "LICENSE AGREEMENT\n\nThis License Agreement dated January 5, 2012 is entered into by Gamma Software Ltd. and Delta Retail Corp.\n\n1. Grant. Gamma grants a license.",
	"nda":     "MUTUAL NON-DISCLOSURE AGREEMENT\n\nBetween Epsilon Holdings plc and Zeta Partners LP, effective 1 July 2015.\n\n1. Confidential Information.",
	"memo":    "Some notes about nothing in particular.",
}

// displayIndex indexes displayTexts, the documents named by rename (id →
// file name) where it says.
func displayIndex(t *testing.T, rename map[string]string) *Index {
	t.Helper()
	ix := NewIndex()
	for _, id := range []string{"supply", "licence", "nda", "memo"} {
		text := displayTexts[id]
		name := id + ".txt"
		if r, ok := rename[id]; ok {
			name = r
		}
		in := index.DocInput{ID: id, Name: name, Header: firstLine(text), Opening: text, Names: names.Learn(text, name).All(), Units: paragraphUnits(text)}
		if err := ix.Add(in); err != nil {
			t.Fatal(err)
		}
	}
	return ix
}

func displaysOf(ix *Index) map[string]string {
	out := map[string]string{}
	for _, id := range []string{"supply", "licence", "nda", "memo", "absent"} {
		out[id] = ix.DocDisplay(id)
	}
	return out
}

// reseal writes the checksum of a displays file changed by a test.
func reseal(b []byte) {
	binary.LittleEndian.PutUint32(b[len(displayMagic)+8:], crc32.ChecksumIEEE(b[displayHeader:]))
}

// A display read from the file kept with the index is the display made;
// a document changed since (another name) is named again; a damaged file,
// a file of other naming rules or no file at all name every document as
// before.
func TestKeptDisplaysLikeMade(t *testing.T) {
	made := displaysOf(displayIndex(t, nil))
	if !strings.Contains(made["supply"], "Acme") || made["absent"] != "" {
		t.Fatalf("displays made: %q", made)
	}
	var buf bytes.Buffer
	if err := displayIndex(t, nil).WriteDisplays(&buf); err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()

	ix := displayIndex(t, nil)
	ix.SetDisplays(func() ([]byte, error) { return file, nil })
	if got := displaysOf(ix); !maps.Equal(got, made) {
		t.Errorf("displays read: %q, made: %q", got, made)
	}
	if n := ix.DisplaysMade(); n != 0 {
		t.Errorf("%d displays made with every one kept", n)
	}

	// The file is what is read: a display changed in it (and the checksum
	// written again) is the one returned.
	changed := bytes.Clone(file)
	i := bytes.Index(changed, []byte("Acme"))
	copy(changed[i:], "ACME")
	reseal(changed)
	ix = displayIndex(t, nil)
	ix.SetDisplays(func() ([]byte, error) { return changed, nil })
	if got := ix.DocDisplay("supply"); got != strings.Replace(made["supply"], "Acme", "ACME", 1) {
		t.Errorf("display read from a changed file: %q", got)
	}

	// A document named otherwise since: named again, the others read.
	ix = displayIndex(t, map[string]string{"memo": "board-memo.txt"})
	ix.SetDisplays(func() ([]byte, error) { return file, nil })
	fresh := displaysOf(displayIndex(t, map[string]string{"memo": "board-memo.txt"}))
	if got := displaysOf(ix); !maps.Equal(got, fresh) {
		t.Errorf("displays after a rename: %q, made: %q", got, fresh)
	}
	if n := ix.DisplaysMade(); n != 1 {
		t.Errorf("%d displays made, want the renamed document's only", n)
	}

	damaged := bytes.Clone(file)
	damaged[len(damaged)-3] ^= 0x20
	otherRules := bytes.Clone(file)
	binary.LittleEndian.PutUint32(otherRules[len(displayMagic):], names.DisplayRules+1)
	torn := file[:len(file)/2]
	for name, read := range map[string]func() ([]byte, error){
		"damaged":     func() ([]byte, error) { return damaged, nil },
		"other rules": func() ([]byte, error) { return otherRules, nil },
		"torn":        func() ([]byte, error) { return torn, nil },
		"empty":       func() ([]byte, error) { return nil, nil },
		"missing":     func() ([]byte, error) { return nil, errors.New("no such file") },
	} {
		ix := displayIndex(t, nil)
		ix.SetDisplays(read)
		if got := displaysOf(ix); !maps.Equal(got, made) {
			t.Errorf("%s file: displays %q, made: %q", name, got, made)
		}
		if n := ix.DisplaysMade(); n != 4 {
			t.Errorf("%s file: %d displays made, want all 4", name, n)
		}
	}
}

// Every document of the four LegalBench-RAG corpora is shown alike whether
// its display is read from the kept file or made (skipped without
// ../shared/data).
func TestKeptDisplaysCorpus(t *testing.T) {
	var ins []index.DocInput
	for _, c := range []string{"cuad", "maud", "privacy_qa", "contractnli"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "data", "legalbenchrag", "corpus", c, "*.txt"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			text, name := string(data), c+"/"+filepath.Base(f)
			ins = append(ins, index.DocInput{ID: name, Name: name, Header: firstLine(text), Opening: text[:min(len(text), 300)], Names: names.Learn(text, name).All(),
				Units: []index.UnitInput{{Text: text[:min(len(text), 300)], Node: -1}}})
		}
	}
	if len(ins) == 0 {
		t.Skip("../shared/data not present")
	}
	build := func() *Index {
		ix := NewIndex()
		for _, in := range ins {
			if err := ix.Add(in); err != nil {
				t.Fatal(err)
			}
		}
		return ix
	}
	made := build()
	var buf bytes.Buffer
	if err := made.WriteDisplays(&buf); err != nil {
		t.Fatal(err)
	}
	kept := build()
	kept.SetDisplays(func() ([]byte, error) { return buf.Bytes(), nil })
	differ := 0
	for _, in := range ins {
		want := names.Display(names.FromList(docNamesList(made, in.ID), in.Name), in.Name)
		if got := kept.DocDisplay(in.ID); got != want || made.DocDisplay(in.ID) != want {
			differ++
			t.Errorf("%s: kept display %q, names.Display %q", in.ID, got, want)
		}
	}
	if n := kept.DisplaysMade(); n != 0 || differ != 0 {
		t.Errorf("%d of %d displays made with all kept; %d differ", n, len(ins), differ)
	}
}

// docNamesList is the names the index keeps of document id.
func docNamesList(ix *Index, id string) []names.Name {
	n, _ := ix.DocNames(id)
	return n.All()
}
