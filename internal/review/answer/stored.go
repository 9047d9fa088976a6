package answer

import (
	"encoding/binary"
	"errors"
	"maps"
	"slices"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/detect"
)

// What the answer readers find in a whole contract — its parties, its
// running lines — is stored with the contract's preparation for the
// detectors when it is ingested (Sections), so a question about a stored
// contract reads it rather than reading the whole contract again. A section
// is named with its version: bump it whenever what it holds is found
// differently (TestSectionsFingerprint fails until then), and a contract
// stored by an older pakton has it found again from its text.
const (
	partiesSection  = "answer.parties/4"
	runningSection  = "answer.running/1"
	agreeingSection = "answer.agreeing/1"
	datesSection    = "answer.dates/1"
	dateSection     = "answer.date/1"
)

// Sections returns the sections of p the answer readers store with its
// preparation (detect.Prepared.Encode).
func Sections(p *detect.Prepared) []detect.Section {
	return []detect.Section{
		{Name: partiesSection, Data: encodeParties(partyReads(p))},
		{Name: runningSection, Data: encodeSpans(runningLines(p))},
		{Name: agreeingSection, Data: binary.AppendVarint(nil, int64(agreeingAt(p)))},
		{Name: datesSection, Data: encodeDates(datesDefinedIn(p))},
		{Name: dateSection, Data: []byte(contractDate(p))},
	}
}

// encodeDates writes the defined dates by name, in the names' order.
func encodeDates(dates map[string]string) []byte {
	b := binary.AppendUvarint(nil, uint64(len(dates)))
	for _, name := range slices.Sorted(maps.Keys(dates)) {
		b = appendString(b, name)
		b = appendString(b, dates[name])
	}
	return b
}

// decodeDates reads encodeDates' bytes.
func decodeDates(b []byte) (map[string]string, error) {
	c, k := binary.Uvarint(b)
	if k <= 0 || c > uint64(len(b)) {
		return nil, errSection
	}
	b = b[k:]
	out := make(map[string]string, c)
	for range c {
		name, ok1 := readString(&b)
		date, ok2 := readString(&b)
		if !ok1 || !ok2 {
			return nil, errSection
		}
		out[name] = date
	}
	if len(b) != 0 || len(out) != int(c) {
		return nil, errSection
	}
	return out, nil
}

// decodeAgreeing reads agreeingSection's bytes for a text of n code
// points.
func decodeAgreeing(b []byte, n int) (int, error) {
	v, k := binary.Varint(b)
	if k <= 0 || k != len(b) || v < -1 || v > int64(n) {
		return 0, errSection
	}
	return int(v), nil
}

var errSection = errors.New("answer: stored section does not fit")

// appendString writes s after its length.
func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// readString reads appendString's bytes from the front of *b and moves
// past them; false when they do not fit.
func readString(b *[]byte) (string, bool) {
	l, k := binary.Uvarint(*b)
	if k <= 0 || l > uint64(len(*b)-k) {
		return "", false
	}
	s := string((*b)[k : k+int(l)])
	*b = (*b)[k+int(l):]
	return s, true
}

func encodeParties(reads []partyRead) []byte {
	b := binary.AppendUvarint(nil, uint64(len(reads)))
	for _, r := range reads {
		b = appendString(b, r.name)
		b = appendString(b, r.role)
		for _, v := range []int{r.nameAt, r.nameEnd, r.roleAt, r.roleEnd} {
			b = binary.AppendVarint(b, int64(v))
		}
	}
	return b
}

// decodeParties reads encodeParties' bytes for a text of n bytes.
func decodeParties(b []byte, n int) ([]partyRead, error) {
	c, k := binary.Uvarint(b)
	if k <= 0 || c > uint64(len(b)) {
		return nil, errSection
	}
	b = b[k:]
	var out []partyRead
	for range c {
		var r partyRead
		var ok1, ok2 bool
		r.name, ok1 = readString(&b)
		r.role, ok2 = readString(&b)
		if !ok1 || !ok2 {
			return nil, errSection
		}
		var v [4]int
		for i := range v {
			x, k := binary.Varint(b)
			if k <= 0 || x < -1 || x > int64(n) {
				return nil, errSection
			}
			v[i] = int(x)
			b = b[k:]
		}
		r.nameAt, r.nameEnd, r.roleAt, r.roleEnd = v[0], v[1], v[2], v[3]
		out = append(out, r)
	}
	if len(b) != 0 {
		return nil, errSection
	}
	return out, nil
}

func encodeSpans(spans []document.Span) []byte {
	b := binary.AppendUvarint(nil, uint64(len(spans)))
	for _, sp := range spans {
		b = binary.AppendUvarint(b, uint64(sp.Start))
		b = binary.AppendUvarint(b, uint64(sp.End))
	}
	return b
}

// decodeSpans reads encodeSpans' bytes for a text of n code points.
func decodeSpans(b []byte, n int) ([]document.Span, error) {
	c, k := binary.Uvarint(b)
	if k <= 0 || c > uint64(len(b)) {
		return nil, errSection
	}
	b = b[k:]
	var out []document.Span
	for range c {
		s, k1 := binary.Uvarint(b)
		if k1 <= 0 {
			return nil, errSection
		}
		e, k2 := binary.Uvarint(b[k1:])
		if k2 <= 0 || s > e || e > uint64(n) {
			return nil, errSection
		}
		b = b[k1+k2:]
		out = append(out, document.Span{Start: int(s), End: int(e)})
	}
	if len(b) != 0 {
		return nil, errSection
	}
	return out, nil
}
