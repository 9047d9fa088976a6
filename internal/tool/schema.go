package tool

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pakton/pakton/internal/llm"
)

// paramsOf is the JSON schema of a tool's arguments, derived from T, the
// struct its Call decodes them into (llm.DeriveSchema), so a schema cannot
// name an argument Call does not read. adjust, when not nil, sets what a Go
// type cannot say on the properties (bounds, a description that depends on
// configuration).
func paramsOf[T any](adjust func(props map[string]*jsonschema.Schema)) json.RawMessage {
	return llm.DeriveSchema[T](func(s *jsonschema.Schema) {
		if adjust != nil {
			adjust(s.Properties)
		}
	})
}

// bounds sets the inclusive minimum and maximum of an integer property.
func bounds(p *jsonschema.Schema, min, max int) {
	lo, hi := float64(min), float64(max)
	p.Minimum, p.Maximum = &lo, &hi
}
