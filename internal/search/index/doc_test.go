package index

import (
	"reflect"
	"testing"

	"github.com/pakton/pakton/internal/document"
)

func TestDocRoundTrip(t *testing.T) {
	in := DocInput{ID: "x", Name: "x.txt", Header: "H", Units: []UnitInput{
		{Text: "The licensee shall pay fees under this Agreement.", Spans: []document.Span{{Start: 0, End: 28}}, Node: 3, View: ViewAncestors, Heading: "Fees"},
		{Text: "Fees are due monthly; fees fees.", Spans: []document.Span{{Start: 30, End: 60}, {Start: 70, End: 80}}, Node: -1},
	}}
	doc := AnalyzeDoc(in)
	got, err := DecodeDoc(doc.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(doc, got) {
		t.Fatalf("round trip changed the document:\n%+v\n%+v", doc, got)
	}
}

func FuzzDecodeDoc(f *testing.F) {
	f.Add(AnalyzeDoc(DocInput{ID: "x", Units: []UnitInput{{Text: "a b c", Spans: []document.Span{{Start: 0, End: 5}}}}}).Encode())
	f.Add([]byte(docMagic))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		DecodeDoc(data)
	})
}

func FuzzDecodeVectors(f *testing.F) {
	f.Add((&Vectors{Model: "m", Units: []int32{0, 3}, Vecs: [][]float32{{1, 2}, {3, 4}}}).Encode())
	f.Add([]byte(vectorsMagic + "\x01m\xff\xff\xff\xff\x0f\x02"))
	f.Fuzz(func(t *testing.T, data []byte) {
		DecodeVectors(data)
	})
}
