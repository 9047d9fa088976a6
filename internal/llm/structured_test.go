package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/llm/llmtest"
)

const verdictSchema = `{
  "type": "object",
  "properties": {
    "label": {"type": "string", "enum": ["entailment", "contradiction", "neutral"]},
    "sources": {"type": "array", "minItems": 1, "items": {
      "type": "object",
      "properties": {"n": {"type": "integer"}, "quote": {"type": "string"}},
      "required": ["n", "quote"],
      "additionalProperties": false
    }}
  },
  "required": ["label", "sources"],
  "additionalProperties": false
}`

type verdict struct {
	Label   string `json:"label"`
	Sources []struct {
		N     int    `json:"n"`
		Quote string `json:"quote"`
	} `json:"sources"`
}

func TestCompleteJSON(t *testing.T) {
	valid := `{"label":"entailment","sources":[{"n":1,"quote":"30 days"}]}`
	tests := []struct {
		name    string
		turns   []llmtest.Turn
		wantErr bool
		check   func(t *testing.T, reqs []*llmtest.Request)
	}{
		{name: "valid first time", turns: []llmtest.Turn{{Text: valid}}},
		{name: "fenced with prose", turns: []llmtest.Turn{{Text: "Sure! Here is the answer:\n```json\n" + valid + "\n```\nHope that helps."}}},
		{name: "leading prose", turns: []llmtest.Turn{{Text: "The verdict is " + valid + " as shown."}}},
		{
			name: "malformed then repaired",
			turns: []llmtest.Turn{
				{Name: "broken", Text: `{"label":"entailment","sources":[{"n":1,"quote":"30 days"}`},
				{Name: "repair", Match: llmtest.Contains("corrected JSON only"), Text: valid},
			},
			check: func(t *testing.T, reqs []*llmtest.Request) {
				r := reqs[1]
				n := len(r.Messages)
				if n != 3 || r.Messages[n-2].Role != "assistant" || !strings.Contains(r.Messages[n-2].Content, `"label":"entailment"`) ||
					!strings.Contains(r.Messages[n-1].Content, "unterminated") {
					t.Errorf("repair turn %+v", r.Messages)
				}
			},
		},
		{
			name: "schema violation then repaired",
			turns: []llmtest.Turn{
				{Name: "bad enum", Text: `{"label":"maybe","sources":[{"n":1,"quote":"x"}]}`},
				{Name: "repair", Match: llmtest.Contains(`$.label: "maybe" is not one of`), Text: valid},
			},
		},
		{
			name: "repair fails",
			turns: []llmtest.Turn{
				{Name: "bad", Text: `{"label":"entailment","sources":[]}`},
				{Name: "still bad", Match: llmtest.Contains("at least 1 required"), Text: "I cannot answer in JSON."},
			},
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tt.turns...)
			meter := &llm.Meter{}
			c := meter.Wrap(newClient(t, srv, nil))
			var v verdict
			resp, err := llm.CompleteJSON(context.Background(), c, llm.Request{
				Step: "interrogator", Messages: user("Does it entail?"),
				Schema: &llm.Schema{Name: "verdict", Schema: json.RawMessage(verdictSchema)},
			}, &v)
			if tt.wantErr {
				if !errors.Is(err, llm.ErrInvalidJSON) {
					t.Fatalf("error %v, want ErrInvalidJSON", err)
				}
				if len(srv.Requests()) != 2 {
					t.Errorf("%d requests, want 2 (one repair only)", len(srv.Requests()))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v.Label != "entailment" || len(v.Sources) != 1 || v.Sources[0].Quote != "30 days" || resp == nil {
				t.Errorf("decoded %+v", v)
			}
			if s := meter.Summary(); s.Total.Calls != len(tt.turns) {
				t.Errorf("meter counted %d calls, want %d", s.Total.Calls, len(tt.turns))
			}
			if tt.check != nil {
				tt.check(t, srv.Requests())
			}
		})
	}
}

func TestExtractJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":1}`, `{"a":1}`},
		{"```json\n{\"a\":1}\n```", `{"a":1}`},
		{"```\n{\"a\":1}\n```", `{"a":1}`},
		{`Answer: {"a":"}{"} done`, `{"a":"}{"}`},
		{`text {not json} then {"b":[1,2]}`, `{"b":[1,2]}`},
		{`[1,2]`, `[1,2]`},
		{`no json here`, ``},
		{`{"a":`, ``},
		{``, ``},
	}
	for _, tt := range tests {
		got, err := llm.ExtractJSON(tt.in)
		if string(got) != tt.want || (tt.want == "") != (err != nil) {
			t.Errorf("ExtractJSON(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestValidate(t *testing.T) {
	s, err := llm.ParseSchema(json.RawMessage(verdictSchema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, wantErr string }{
		{`{"label":"neutral","sources":[{"n":2,"quote":"q"}]}`, ""},
		{`{"label":"neutral"}`, `$: required property "sources" is missing`},
		{`{"label":"yes","sources":[{"n":1,"quote":"q"}]}`, `$.label: "yes" is not one of`},
		{`{"label":"neutral","sources":[]}`, `$.sources: 0 items, at least 1 required`},
		{`{"label":"neutral","sources":[{"n":1.5,"quote":"q"}]}`, `$.sources[0].n: expected integer`},
		{`{"label":"neutral","sources":[{"n":1,"quote":"q","x":1}]}`, `$.sources[0]: property "x" is not allowed`},
		{`{"label":3,"sources":[{"n":1,"quote":"q"}]}`, `$.label: expected string, got number`},
		{`[]`, `$: expected object, got array`},
	}
	for _, tt := range tests {
		var v any
		dec := json.NewDecoder(strings.NewReader(tt.in))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		err := s.Validate(v)
		if (tt.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("Validate(%s) = %v, want %q", tt.in, err, tt.wantErr)
		}
	}
}

// TestCompleteJSONNumbersOutOfRange: JSON numbers float64 cannot hold —
// which grammar-constrained decoding on Ollama produced from an untrained
// model — are valid replies, decoded as the nearest float64.
func TestCompleteJSONNumbersOutOfRange(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Turn{Text: `{"confidence":0E-525,"scores":[24E350,-1e999,0.5],"n":3}`})
	c := newClient(t, srv, nil)
	var out struct {
		Confidence float64   `json:"confidence"`
		Scores     []float64 `json:"scores"`
		N          int       `json:"n"`
	}
	schema := `{"type":"object","properties":{"confidence":{"type":"number"},"scores":{"type":"array","items":{"type":"number"}},"n":{"type":"integer"}},"required":["confidence","scores","n"]}`
	if _, err := llm.CompleteJSON(context.Background(), c, llm.Request{Messages: user("rate"), Schema: &llm.Schema{Name: "r", Schema: json.RawMessage(schema)}}, &out); err != nil {
		t.Fatal(err)
	}
	if out.Confidence != 0 || out.Scores[0] != math.MaxFloat64 || out.Scores[1] != -math.MaxFloat64 || out.Scores[2] != 0.5 || out.N != 3 {
		t.Errorf("decoded %+v", out)
	}
}
