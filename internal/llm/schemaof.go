package llm

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// DeriveSchema returns the JSON schema of T, the struct a reply or a tool's
// arguments are decoded into, derived with github.com/google/jsonschema-go
// (the library the MCP SDK derives the MCP tools' schemas with): a property
// per JSON field, described by its `jsonschema` tag, required unless its tag
// says omitempty, no other properties, and a slice an array (a nil slice is
// never what a model is asked for, so "null" is not offered). A schema
// derived so cannot name a field the decoder does not read, nor miss one it
// does. adjust, when not nil, adds what a Go type cannot say (bounds, a
// minimum length, a description that depends on configuration).
//
// T is a fixed type of the program, so deriving cannot fail on input; a
// failure is a programming error and panics where the schema is built.
func DeriveSchema[T any](adjust func(s *jsonschema.Schema)) json.RawMessage {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("llm: schema of %T: %v", *new(T), err))
	}
	notNull(s)
	if adjust != nil {
		adjust(s)
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("llm: schema of %T: %v", *new(T), err))
	}
	return b
}

// SchemaOf is the structured-output schema called name of a reply decoded
// into T (DeriveSchema).
func SchemaOf[T any](name string, adjust func(s *jsonschema.Schema)) *Schema {
	return &Schema{Name: name, Schema: DeriveSchema[T](adjust)}
}

// notNull turns the ["null", X] types jsonschema.For gives slices into X,
// throughout s.
func notNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	notNull(s.Items)
	for _, p := range s.Properties {
		notNull(p)
	}
}
