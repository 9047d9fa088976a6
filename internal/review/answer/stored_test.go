package answer

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"reflect"
	"testing"

	"github.com/pakton/pakton/examples"
	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/detect"
)

func sampleContracts(t *testing.T) []detect.Doc {
	t.Helper()
	var out []detect.Doc
	for _, name := range []string{"contracts/distribution-agreement.txt", "contracts/master-services-agreement.txt", "contracts/mutual-nda.md"} {
		b, err := examples.FS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		doc := &document.Document{ID: name, Name: name, Format: "text", Text: string(b)}
		out = append(out, detect.Doc{ID: name, Name: name, Doc: doc, Tree: clause.Parse(doc)})
	}
	return out
}

// TestSectionsStoredLikeFound checks that a contract's parties and running
// lines read from its stored preparation are those found in its text, and
// that a damaged section is found again rather than used.
func TestSectionsStoredLikeFound(t *testing.T) {
	for _, d := range sampleContracts(t) {
		fresh, err := detect.Prepare(d)
		if err != nil {
			t.Fatal(err)
		}
		b := fresh.Encode(Sections(fresh)...)
		stored, err := detect.DecodePrepared(d, b)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := stored.Section(partiesSection); !ok {
			t.Fatalf("%s: no parties section stored", d.Name)
		}
		want, _ := detect.Prepare(d)
		if got, w := partyReads(stored), partyReads(want); !reflect.DeepEqual(got, w) || len(w) == 0 {
			t.Errorf("%s: stored parties %+v, found %+v", d.Name, got, w)
		}
		if got, w := runningLines(stored), runningLines(want); !reflect.DeepEqual(got, w) {
			t.Errorf("%s: stored running lines %v, found %v", d.Name, got, w)
		}
		if _, ok := stored.Section(agreeingSection); !ok {
			t.Fatalf("%s: no agreeing section stored", d.Name)
		}
		if got, w := agreeingAt(stored), agreeingAt(want); got != w {
			t.Errorf("%s: stored operative start %d, found %d", d.Name, got, w)
		}
		if _, ok := stored.Section(datesSection); !ok {
			t.Fatalf("%s: no dates section stored", d.Name)
		}
		if got, w := datesDefinedIn(stored), datesDefinedIn(want); !reflect.DeepEqual(got, w) {
			t.Errorf("%s: stored defined dates %v, found %v", d.Name, got, w)
		}
		if _, ok := stored.Section(dateSection); !ok {
			t.Fatalf("%s: no contract date section stored", d.Name)
		}
		if got, w := contractDate(stored), contractDate(want); got != w {
			t.Errorf("%s: stored contract date %q, found %q", d.Name, got, w)
		}
		db := encodeDates(map[string]string{"effective date": "2020-01-02", "closing date": "2021-03-04"})
		if got, err := decodeDates(db); err != nil || len(got) != 2 || got["closing date"] != "2021-03-04" {
			t.Errorf("%s: dates read back as %v (%v)", d.Name, got, err)
		}
		if _, err := decodeDates(db[:len(db)-1]); err == nil {
			t.Errorf("%s: dates cut short were read", d.Name)
		}
		// A section cut short or out of bounds is not used.
		pb := encodeParties(partyReads(want))
		if _, err := decodeParties(pb[:len(pb)-1], len(d.Doc.Text)); err == nil {
			t.Errorf("%s: parties cut short were read", d.Name)
		}
		if _, err := decodeParties(pb, 3); err == nil {
			t.Errorf("%s: parties outside the text were read", d.Name)
		}
		if _, err := decodeSpans(encodeSpans([]document.Span{{Start: 1, End: 9}}), 5); err == nil {
			t.Errorf("%s: running lines outside the text were read", d.Name)
		}
		for _, b := range [][]byte{nil, {0x80}, binary.AppendVarint(nil, 6), binary.AppendVarint(nil, -2), append(binary.AppendVarint(nil, 1), 0)} {
			if _, err := decodeAgreeing(b, 5); err == nil {
				t.Errorf("%s: operative start %x read for a text of 5 code points", d.Name, b)
			}
		}
	}
}

// sectionsFingerprint is the hash of the sections of the sample contracts.
// When it changes, sections stored by the code before are stale: bump the
// changed section's version (partiesSection, runningSection,
// agreeingSection, datesSection, dateSection), then record the new hash
// here.
const sectionsFingerprint = "f77e6da77d798968"

// TestSectionsFingerprint fails when what a stored section holds changes
// without a new version of it.
func TestSectionsFingerprint(t *testing.T) {
	h := sha256.New()
	h.Write([]byte(partiesSection + runningSection + agreeingSection + datesSection + dateSection))
	for _, d := range sampleContracts(t) {
		p, err := detect.Prepare(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range Sections(p) {
			h.Write([]byte(s.Name))
			h.Write(s.Data)
		}
	}
	if got := hex.EncodeToString(h.Sum(nil))[:16]; got != sectionsFingerprint {
		t.Errorf("the answer readers' stored sections changed (fingerprint %s): bump the changed section's version and set sectionsFingerprint to the new hash", got)
	}
}
