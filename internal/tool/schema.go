package tool

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// paramsOf is the JSON schema of a tool's arguments, derived from T, the
// struct its Call decodes them into (github.com/google/jsonschema-go, the
// library the MCP SDK derives the MCP tools' schemas with): a property per
// JSON field, described by its `jsonschema` tag, required unless its tag says
// omitempty, and no other properties. A schema therefore cannot name an
// argument Call does not read. adjust, when not nil, adds what a Go type
// cannot say (bounds, a description that depends on configuration).
//
// T is a fixed struct of strings and integers, so deriving cannot fail; a
// failure is a programming error and panics when the tool is built.
func paramsOf[T any](adjust func(props map[string]*jsonschema.Schema)) json.RawMessage {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("tool: schema of %T: %v", *new(T), err))
	}
	if adjust != nil {
		adjust(s.Properties)
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tool: schema of %T: %v", *new(T), err))
	}
	return b
}

// bounds sets the inclusive minimum and maximum of an integer property.
func bounds(p *jsonschema.Schema, min, max int) {
	lo, hi := float64(min), float64(max)
	p.Minimum, p.Maximum = &lo, &hi
}
