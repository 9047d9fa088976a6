package clause

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pakton/pakton/internal/document"
)

// sameAsUnmarshal fails t when DecodeJSON and json.Unmarshal disagree on b:
// one fails and not the other, or their trees differ (nil and empty slices
// told apart).
func sameAsUnmarshal(t testing.TB, name string, b []byte) {
	t.Helper()
	want := new(Tree)
	werr := json.Unmarshal(b, want)
	got, gerr := DecodeJSON(b)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%s: DecodeJSON error %v, json.Unmarshal %v", name, gerr, werr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: DecodeJSON differs from json.Unmarshal:\n got %+v\nwant %+v", name, got, want)
	}
}

func TestDecodeJSONLikeUnmarshal(t *testing.T) {
	cases := []string{
		`{}`, `{"nodes":[]}`, `{"nodes":null}`, ` { "nodes" : [ ] } `, `{"nodes":[{}]}`,
		`{"nodes":[{"id":0,"parent":-1,"children":[1,2],"kind":"document","depth":0,"span":{"start":0,"end":10},"own":{"start":0,"end":0}}]}`,
		`{"nodes":[{"id":1,"children":[]}]}`, `{"nodes":[{"id":1,"children":null}]}`,
		`{"nodes":[{"id":1,"label":"5.2(a)","heading":"Limitation of Liability","term":"\"Fees\""}]}`,
		`{"nodes":[{"heading":"Caf\u00e9"}]}`, `{"nodes":[{"heading":"Café – “x”"}]}`, "{\"nodes\":[{\"heading\":\"bad \xff\"}]}",
		`{"nodes":[{"ID":3}]}`, `{"nodes":[{"id":1.0}]}`, `{"nodes":[{"id":1e2}]}`, `{"nodes":[{"id":01}]}`,
		`{"nodes":[{"id":-0}]}`, `{"nodes":[{"id":99999999999999999999}]}`, `{"nodes":[{"id":"1"}]}`,
		`{"nodes":[{"other":1}]}`, `{"nodes":[{"id":1,"id":2}]}`, `{"nodes":[],"nodes":[{"id":4}]}`,
		`{"nodes":[{"span":{"start":1}}]}`, `{"nodes":[{"span":null}]}`, `{"nodes":[{"id":1}]} x`,
		`{"nodes":[{"heading":"A \u0026 B \"x\" \\"}]}`, `{"nodes":[{"heading":"\ud83d\ude00 \ud83d"}]}`,
		`{"nodes":[{"heading":"bad \u12"}]}`, `{"nodes":[{"heading":"end\"}]}`, `{"n\u006fdes":[{"id":7}]}`,
		`{"nodes":[{"id":1},]}`, `{"nodes":[{"id":1}`, `[]`, ``, `null`, `{"nodes":[{"kind":"x\ty"}]}`,
	}
	for _, c := range cases {
		sameAsUnmarshal(t, c, []byte(c))
	}
}

// TestDecodeJSONCorpus decodes the tree of every corpus contract as the
// store writes it.
func TestDecodeJSONCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus test skipped in -short mode")
	}
	for _, f := range corpusFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tr := Parse(&document.Document{Name: filepath.Base(f), Text: string(b)})
		raw, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		sameAsUnmarshal(t, filepath.Base(f), raw)
	}
}

func FuzzDecodeJSON(f *testing.F) {
	f.Add([]byte(`{"nodes":[{"id":0,"parent":-1,"children":[1],"kind":"document","depth":0,"span":{"start":0,"end":10},"own":{"start":0,"end":0}},{"id":1,"parent":0,"kind":"clause","label":"1.","heading":"Term","depth":1,"span":{"start":0,"end":10},"own":{"start":0,"end":10}}]}`))
	f.Add([]byte(`{"nodes":[{"heading":"a\"b","term":"é"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		sameAsUnmarshal(t, string(b), b)
	})
}
