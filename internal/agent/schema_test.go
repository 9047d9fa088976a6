package agent

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/pakton/pakton/internal/llm"
)

// The schemas the agents asked for when they were written by hand.
const handWrittenArchivist = `{"type":"object","properties":{` +
	`"query":{"type":"string","minLength":1},"context":{"type":"string"},"instructions":{"type":"string"},` +
	`"documents":{"type":"array","items":{"type":"string"}},"clarifying_question":{"type":"string"}},` +
	`"required":["query","context","instructions","documents","clarifying_question"],"additionalProperties":false}`
const handWrittenResearcher = `{"type":"object","properties":{` +
	`"answer":{"type":"string","minLength":1},` +
	`"evidence":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"quote":{"type":"string"}},"required":["id","quote"],"additionalProperties":false}}},` +
	`"required":["answer","evidence"],"additionalProperties":false}`
const handWrittenQuestion = `{"type":"object","properties":{"done":{"type":"boolean"},"question":{"type":"string"},"reason":{"type":"string"}},` +
	`"required":["done","question","reason"],"additionalProperties":false}`
const handWrittenWriter = `{"type":"object","properties":{` +
	`"title":{"type":"string"},"summary":{"type":"string"},"reasoning":{"type":"string"},"answer":{"type":"string","minLength":1},"gaps":{"type":"string"},` +
	`"sources":{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"},"evidence_id":{"type":"string"},"quote":{"type":"string"}},"required":["n","evidence_id","quote"],"additionalProperties":false}}},` +
	`"required":["title","summary","reasoning","answer","gaps","sources"],"additionalProperties":false}`

// TestSchemasDerived: the structured outputs derived from the reply types
// say what the hand-written schemas said (compared as JSON values), and each
// passes the client's own schema reader.
func TestSchemasDerived(t *testing.T) {
	for _, tc := range []struct {
		name, got, want string
	}{
		{"archivist", string(archivistSchema.Schema), handWrittenArchivist},
		{"researcher", string(researcherSchema.Schema), handWrittenResearcher},
		{"question", string(questionSchema.Schema), handWrittenQuestion},
		{"writer", string(writerSchema.Schema), handWrittenWriter},
	} {
		var got, want any
		if err := json.Unmarshal([]byte(tc.got), &got); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, tc.got, tc.want)
		}
		if _, err := llm.ParseSchema(json.RawMessage(tc.got)); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
