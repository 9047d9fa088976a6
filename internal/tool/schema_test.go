package tool

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestParamsDerived: the argument schemas derived from the Go types say what
// the hand-written ones said (compared as JSON values), so the model is
// offered the same arguments.
func TestParamsDerived(t *testing.T) {
	ws, err := NewWebSearch(WebConfig{URL: "http://x"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		got  json.RawMessage
		want string
	}{
		{"search_contract", (&SearchContract{}).Spec().Parameters, `{"type":"object","properties":{` +
			`"query":{"type":"string","description":"what to look for, in the words a contract would use"},` +
			`"k":{"type":"integer","minimum":1,"maximum":10,"description":"number of passages (default 5)"}},` +
			`"required":["query"],"additionalProperties":false}`},
		{"define_term", (&DefineTerm{}).Spec().Parameters, `{"type":"object","properties":{` +
			`"term":{"type":"string","description":"the defined term, as capitalised in the contract"},` +
			`"document":{"type":"string","description":"optional: the document's name or id, when several are under review"}},` +
			`"required":["term"],"additionalProperties":false}`},
		{"follow_reference", (&FollowReference{}).Spec().Parameters, `{"type":"object","properties":{` +
			`"reference":{"type":"string","description":"the reference as written, e.g. \"Section 7.3\" or \"Exhibit B\""},` +
			`"document":{"type":"string","description":"optional: the document's name or id, when several are under review"}},` +
			`"required":["reference"],"additionalProperties":false}`},
		{"web_search", ws.Spec().Parameters, `{"type":"object","properties":{` +
			`"query":{"type":"string","description":"search terms, as for a web search engine"},` +
			`"max_results":{"type":"integer","minimum":1,"maximum":10,"description":"number of results (default 5)"}},` +
			`"required":["query"],"additionalProperties":false}`},
		{"sql_query", (&SQL{}).Spec().Parameters, `{"type":"object","properties":{` +
			`"query":{"type":"string","description":"a single SELECT statement"}},` +
			`"required":["query"],"additionalProperties":false}`},
	} {
		var got, want any
		if err := json.Unmarshal(tc.got, &got); err != nil {
			t.Fatalf("%s: %v: %s", tc.name, err, tc.got)
		}
		if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, tc.got, tc.want)
		}
	}
}
