package detect

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// decodeJSON is what DecodeModel must match: json.Unmarshal into a Model.
func decodeJSON(raw string) (*Model, error) {
	var m Model
	err := json.Unmarshal([]byte(raw), &m)
	return &m, err
}

func sameDecoding(t *testing.T, raw string) {
	t.Helper()
	got, gotErr := DecodeModel(raw)
	want, wantErr := decodeJSON(raw)
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("%.200q: error %v, json's %v", raw, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%.200q: decoded\n%+v\njson decodes\n%+v", raw, got, want)
	}
}

// TestDecodeModelLikeJSON checks that every shipped model, and models
// written in every way the scanner leaves to json, decode exactly as
// json.Unmarshal decodes them.
func TestDecodeModelLikeJSON(t *testing.T) {
	for _, file := range []string{"../builtin/detectors.json", "../builtin/merger-detectors.json"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			Models []json.RawMessage `json:"models"`
		}
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		if len(d.Models) == 0 {
			t.Fatalf("%s: no models", file)
		}
		weights := 0
		for _, raw := range d.Models {
			sameDecoding(t, string(raw))
			if w, _, _, ok := weightsOf(string(raw)); !ok {
				t.Errorf("%s: a model's weights are left to json", file)
			} else {
				weights += len(w)
			}
		}
		t.Logf("%s: %d models, %d weights read by the scanner", file, len(d.Models), weights)
	}
	for _, raw := range []string{
		`{"name":"a","weights":{"w:x":1.5,"b:\u003cnum\u003e_y":-0.25,"é":2e-3,"z":0},"platt":[1,2],"threshold":0.5}`,
		`{"name":"a","weights":{}}`,
		`{"name":"a","weights": { } , "bias": 1}`,
		`{"name":"a","weights":{"x":1,"x":2}}`,
		`{"name":"a","weights":{"x":-0}}`,
		`{"name":"a","weights":{"x":1E+2,"y":1e-400}}`,
		`{"name":"a","weights":{"x":1e400}}`,
		`{"name":"a","weights":{"x":01}}`,
		`{"name":"a","weights":{"x":.5}}`,
		`{"name":"a","weights":{"x":+1}}`,
		`{"name":"a","weights":{"x":0x10}}`,
		`{"name":"a","weights":{"x":1.}}`,
		`{"name":"a","weights":{"x":"1"}}`,
		`{"name":"a","weights":{"x":null}}`,
		`{"name":"a","weights":{"x":1,}}`,
		`{"name":"a","weights":{"a\"b":1,"c\\d":2,"e\nf":3,"\ud83d\ude00":4,"\u0001":5}}`,
		"{\"name\":\"a\",\"weights\":{\"\xff\":1}}",
		"{\"name\":\"a\",\"weights\":{\"a\x01\":1}}",
		`{"name":"a","weights":null}`,
		`{"name":"a","weights":[1]}`,
		`{"name":"a","weights":{"x":1},"Weights":null}`,
		`{"name":"a","weights":{"x":1},"weights":{"y":2}}`,
		`{"name":"a","weightſ":{"x":1}}`,
		`{"name":"a","weights":{"x":1},"weightſ":{"y":2}}`,
		`{"name":"weights","bias":{"weights":{"x":1}}}`,
		`{"name":"a","weights":{"x":1},"bias":"no"}`,
		`{"name":"a","weights":{"x":1}} extra`,
		`{"name":"a","weights":{"x":1}`,
		`{"name":"a","platt":[{"weights":{"x":1}}],"weights":{"y":2}}`,
		`[{"weights":{"x":1}}]`,
		`{"weights":{"x":1}, "labelled": 3}`,
		``,
	} {
		sameDecoding(t, raw)
	}
}

func FuzzDecodeModel(f *testing.F) {
	f.Add(`{"name":"a","labelled":2,"bias":-1.5,"weights":{"w:x":1.5,"b:\u003cnum\u003e":-0.25},"platt":[1,2],"threshold":0.5}`)
	f.Add(`{"name":"a","weights":{"x":1},"Weights":null}`)
	f.Add(`{"weights":{"a\"b":1e5,"\u00e9":-0}}`)
	f.Fuzz(func(t *testing.T, raw string) {
		sameDecoding(t, raw)
	})
}

// BenchmarkDecodeModel decodes the shipped CUAD detectors' 24 models, with
// DecodeModel and with json.Unmarshal.
//
//	go test ./internal/review/detect -run '^$' -bench DecodeModel -benchmem
func BenchmarkDecodeModel(b *testing.B) {
	data, err := os.ReadFile("../builtin/detectors.json")
	if err != nil {
		b.Fatal(err)
	}
	var d struct {
		Models []json.RawMessage `json:"models"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		decode func(string) (*Model, error)
	}{{"scanner", DecodeModel}, {"json", decodeJSON}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				for _, raw := range d.Models {
					if _, err := c.decode(string(raw)); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
