package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// ErrInvalidJSON is wrapped by CompleteJSON's error when the model's reply,
// and its one repair, were not JSON matching the schema.
var ErrInvalidJSON = errors.New("model reply is not valid JSON for the schema")

// CompleteJSON asks c for a reply matching req.Schema (which must be set),
// extracts the JSON object from the reply (tolerating ```json fences and
// prose around it), validates it against the schema and unmarshals it into
// out. When the reply does not parse or validate it sends one repair turn
// (the invalid reply, the exact error and "reply with corrected JSON only")
// and fails, wrapping ErrInvalidJSON, if that reply is invalid too.
//
// The returned Response is the last one received; its Usage covers both
// calls when a repair was needed.
func CompleteJSON(ctx context.Context, c Chat, req Request, out any) (*Response, error) {
	if req.Schema == nil {
		return nil, errors.New("CompleteJSON: request has no schema")
	}
	schema, err := ParseSchema(req.Schema.Schema)
	if err != nil {
		return nil, fmt.Errorf("CompleteJSON: schema %q: %w", req.Schema.Name, err)
	}
	resp, err := c.Complete(ctx, req)
	if err != nil {
		return resp, err
	}
	raw, verr := decodeReply(resp.Message.Content, schema)
	if verr == nil {
		return resp, unmarshalInto(raw, out)
	}

	repair := req
	repair.Stream = nil
	repair.Messages = append(append([]Message(nil), req.Messages...),
		Message{Role: RoleAssistant, Content: resp.Message.Content},
		Message{Role: RoleUser, Content: "Your reply was not valid: " + verr.Error() +
			"\nReply with corrected JSON only: one JSON object matching the schema, no prose, no code fences."})
	if repair.Step != "" {
		repair.Step += ".repair"
	}
	first := resp.Usage
	resp, err = c.Complete(ctx, repair)
	if err != nil {
		return resp, fmt.Errorf("repair of invalid JSON (%v): %w", verr, err)
	}
	resp.Usage.PromptTokens += first.PromptTokens
	resp.Usage.CompletionTokens += first.CompletionTokens
	raw, err = decodeReply(resp.Message.Content, schema)
	if err != nil {
		return resp, fmt.Errorf("%w %q after one repair: %v (first reply: %v)", ErrInvalidJSON, req.Schema.Name, err, verr)
	}
	return resp, unmarshalInto(raw, out)
}

func unmarshalInto(raw []byte, out any) error {
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("decode model reply into %T: %w", out, err)
	}
	return nil
}

// decodeReply extracts the JSON value from a reply and validates it.
func decodeReply(content string, schema *JSONSchema) ([]byte, error) {
	raw, err := ExtractJSON(content)
	if err != nil {
		return nil, err
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("reply is not valid JSON: %w", err)
	}
	if err := schema.Validate(v); err != nil {
		return nil, err
	}
	if w, changed := saturate(v); changed {
		// Go cannot hold the number: keep the nearest float64 instead of
		// failing a reply that is valid JSON.
		return json.Marshal(w)
	}
	return raw, nil
}

// saturate replaces every number of v that float64 cannot represent — JSON
// allows any exponent, and a grammar-constrained server will emit
// 0E-525 or 24E350 as readily as 0.5 — by the nearest float64 (0 or
// ±math.MaxFloat64), reporting whether it changed anything.
func saturate(v any) (any, bool) {
	switch x := v.(type) {
	case json.Number:
		if _, err := x.Float64(); err != nil {
			f, _ := strconv.ParseFloat(string(x), 64)
			switch {
			case math.IsInf(f, 1):
				f = math.MaxFloat64
			case math.IsInf(f, -1):
				f = -math.MaxFloat64
			case math.IsNaN(f):
				f = 0
			}
			return f, true
		}
	case map[string]any:
		changed := false
		for k, e := range x {
			if w, c := saturate(e); c {
				x[k], changed = w, true
			}
		}
		return x, changed
	case []any:
		changed := false
		for i, e := range x {
			if w, c := saturate(e); c {
				x[i], changed = w, true
			}
		}
		return x, changed
	}
	return v, false
}

// ExtractJSON returns the first complete JSON object or array in s: the
// whole of s when it is JSON, else the contents of a ```json fence, else the
// first balanced {...} (or [...]) that parses.
func ExtractJSON(s string) ([]byte, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return nil, errors.New("reply is empty, expected a JSON object")
	}
	if json.Valid([]byte(t)) {
		return []byte(t), nil
	}
	if i := strings.Index(t, "```"); i >= 0 {
		rest := t[i+3:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 && !strings.ContainsAny(rest[:nl], "{[") {
			rest = rest[nl+1:]
		}
		if j := strings.Index(rest, "```"); j >= 0 {
			if in := strings.TrimSpace(rest[:j]); json.Valid([]byte(in)) {
				return []byte(in), nil
			}
		}
	}
	var firstErr error
	for start := 0; start < len(t); start++ {
		if t[start] != '{' && t[start] != '[' {
			continue
		}
		end := balancedEnd(t[start:])
		if end < 0 {
			// The values nested inside are fragments, not the answer.
			if firstErr == nil {
				firstErr = fmt.Errorf("reply has an unterminated JSON value (truncated or unbalanced brackets) starting %q", clip(t[start:], 40))
			}
			return nil, firstErr
		}
		cand := t[start : start+end]
		if json.Valid([]byte(cand)) {
			return []byte(cand), nil
		}
		if firstErr == nil {
			var v any
			err := json.Unmarshal([]byte(cand), &v)
			firstErr = fmt.Errorf("reply is not valid JSON: %w", err)
		}
		start += end - 1 // skip the invalid value's insides
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return nil, fmt.Errorf("reply contains no JSON object: %q", clip(t, 60))
}

// balancedEnd returns the length of the bracketed value s starts with,
// honouring strings and escapes, or -1 when it never closes.
func balancedEnd(s string) int {
	depth, inStr, esc := 0, false, false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case esc:
			esc = false
		case inStr && ch == '\\':
			esc = true
		case ch == '"':
			inStr = !inStr
		case inStr:
		case ch == '{' || ch == '[':
			depth++
		case ch == '}' || ch == ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// JSONSchema is the subset of JSON Schema pakton's prompts use: type
// (string or list), properties, required, enum, items, minItems, maxItems,
// additionalProperties (false), minLength. Other keywords (description,
// title, …) are accepted and ignored.
type JSONSchema struct {
	Type                 []string               // empty: any
	Properties           map[string]*JSONSchema // object properties
	Required             []string
	Enum                 []any
	Items                *JSONSchema
	MinItems, MaxItems   *int
	MinLength            *int
	AdditionalProperties *bool // false: only Properties allowed
}

// ParseSchema reads a JSON schema in the supported subset.
func ParseSchema(raw json.RawMessage) (*JSONSchema, error) {
	var w struct {
		Type                 json.RawMessage            `json:"type"`
		Properties           map[string]json.RawMessage `json:"properties"`
		Required             []string                   `json:"required"`
		Enum                 []any                      `json:"enum"`
		Items                json.RawMessage            `json:"items"`
		MinItems             *int                       `json:"minItems"`
		MaxItems             *int                       `json:"maxItems"`
		MinLength            *int                       `json:"minLength"`
		AdditionalProperties json.RawMessage            `json:"additionalProperties"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, err
	}
	s := &JSONSchema{Required: w.Required, Enum: w.Enum, MinItems: w.MinItems, MaxItems: w.MaxItems, MinLength: w.MinLength}
	if len(w.Type) > 0 {
		var one string
		if json.Unmarshal(w.Type, &one) == nil {
			s.Type = []string{one}
		} else if err := json.Unmarshal(w.Type, &s.Type); err != nil {
			return nil, fmt.Errorf("type: %w", err)
		}
	}
	for name, p := range w.Properties {
		ps, err := ParseSchema(p)
		if err != nil {
			return nil, fmt.Errorf("property %s: %w", name, err)
		}
		if s.Properties == nil {
			s.Properties = map[string]*JSONSchema{}
		}
		s.Properties[name] = ps
	}
	if len(w.Items) > 0 {
		is, err := ParseSchema(w.Items)
		if err != nil {
			return nil, fmt.Errorf("items: %w", err)
		}
		s.Items = is
	}
	if len(w.AdditionalProperties) > 0 {
		var b bool
		if json.Unmarshal(w.AdditionalProperties, &b) == nil {
			s.AdditionalProperties = &b
		}
	}
	return s, nil
}

// Validate checks v, a value decoded by encoding/json (numbers as float64
// or json.Number), against s. The error names the first offending path,
// e.g. `$.sources[2].quote: required property missing`.
func (s *JSONSchema) Validate(v any) error { return s.validate("$", v) }

func (s *JSONSchema) validate(path string, v any) error {
	if s == nil {
		return nil
	}
	if len(s.Type) > 0 {
		if !slices.ContainsFunc(s.Type, func(t string) bool { return typeMatches(t, v) }) {
			return fmt.Errorf("%s: expected %s, got %s", path, strings.Join(s.Type, " or "), jsonType(v))
		}
	}
	if len(s.Enum) > 0 {
		if !slices.ContainsFunc(s.Enum, func(e any) bool { return equalJSON(e, v) }) {
			b, _ := json.Marshal(s.Enum)
			got, _ := json.Marshal(v)
			return fmt.Errorf("%s: %s is not one of %s", path, got, b)
		}
	}
	switch x := v.(type) {
	case map[string]any:
		for _, name := range s.Required {
			if _, ok := x[name]; !ok {
				return fmt.Errorf("%s: required property %q is missing", path, name)
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ps, known := s.Properties[k]
			if !known {
				if s.AdditionalProperties != nil && !*s.AdditionalProperties {
					return fmt.Errorf("%s: property %q is not allowed", path, k)
				}
				continue
			}
			if err := ps.validate(path+"."+k, x[k]); err != nil {
				return err
			}
		}
	case []any:
		if s.MinItems != nil && len(x) < *s.MinItems {
			return fmt.Errorf("%s: %d items, at least %d required", path, len(x), *s.MinItems)
		}
		if s.MaxItems != nil && len(x) > *s.MaxItems {
			return fmt.Errorf("%s: %d items, at most %d allowed", path, len(x), *s.MaxItems)
		}
		for i, item := range x {
			if err := s.Items.validate(fmt.Sprintf("%s[%d]", path, i), item); err != nil {
				return err
			}
		}
	case string:
		if s.MinLength != nil && len([]rune(x)) < *s.MinLength {
			return fmt.Errorf("%s: string shorter than %d characters", path, *s.MinLength)
		}
	}
	return nil
}

func typeMatches(t string, v any) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "number":
		_, ok := number(v)
		return ok
	case "integer":
		f, ok := number(v)
		return ok && f == math.Trunc(f)
	}
	return true // unknown type keyword: do not reject
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		// A number out of float64's range is still a number: ParseFloat
		// gives ±Inf or 0 with ErrRange.
		f, err := strconv.ParseFloat(string(n), 64)
		var ne *strconv.NumError
		return f, err == nil || errors.As(err, &ne) && ne.Err == strconv.ErrRange
	}
	return 0, false
}

func jsonType(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	if _, ok := number(v); ok {
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

func equalJSON(a, b any) bool {
	if fa, ok := number(a); ok {
		fb, ok := number(b)
		return ok && fa == fb
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}
