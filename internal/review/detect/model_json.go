package detect

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DecodeModel decodes one model of a detectors file (an element of its
// "models" array) exactly as json.Unmarshal into a Model does: the first
// question about a provision decodes that provision's model, and
// encoding/json spends most of that on the weights, thousands of
// name → number pairs put in a map by reflection. The weights are read here
// by a scanner of their own, the few other fields by json.Unmarshal. A
// weights object the scanner does not read as plainly as Save writes it
// (escapes other than the HTML ones json.Marshal makes, a number json would
// refuse, bytes that are not UTF-8, a second key json would take for the
// weights) is left to json.Unmarshal whole, so what is decoded, and every
// error, stays json's (TestDecodeModelLikeJSON, FuzzDecodeModel).
func DecodeModel(raw string) (*Model, error) {
	var m Model
	w, start, end, ok := weightsOf(raw)
	if !ok {
		return &m, json.Unmarshal([]byte(raw), &m)
	}
	// The other fields, the weights' value replaced by null: the same
	// object to json but for the weights.
	rest := make([]byte, 0, start+len("null")+len(raw)-end)
	rest = append(append(append(rest, raw[:start]...), "null"...), raw[end:]...)
	if err := json.Unmarshal(rest, &m); err != nil || m.Weights != nil {
		// an error elsewhere in the object: json's own, as before
		m = Model{}
		return &m, json.Unmarshal([]byte(raw), &m)
	}
	m.Weights = w
	return &m, nil
}

// weightsOf reads the value of the object raw's top-level key "weights",
// [start, end) of raw, when raw is an object with that key once, its value
// an object scanWeights reads, and no other key json would decode into the
// same field (it matches keys case-insensitively); ok is false otherwise.
func weightsOf(raw string) (w map[string]float64, start, end int, ok bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, 0, 0, false
	}
	depth := 0
	for i < len(raw) {
		c := raw[i]
		switch c {
		case '"':
			j, ok := stringEnd(raw, i)
			if !ok {
				return nil, 0, 0, false
			}
			if k := skipSpace(raw, j); depth == 1 && k < len(raw) && raw[k] == ':' {
				key := raw[i+1 : j-1]
				if strings.IndexByte(key, '\\') >= 0 {
					return nil, 0, 0, false
				}
				if strings.EqualFold(key, "weights") {
					v := skipSpace(raw, k+1)
					if w != nil || key != "weights" {
						return nil, 0, 0, false
					}
					e := 0
					if w, e, ok = scanWeights(raw, v); !ok {
						return nil, 0, 0, false
					}
					start, end = v, e
					i = e
					continue
				}
			}
			i = j
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		i++
	}
	return w, start, end, w != nil && depth == 0
}

// stringEnd returns the index just past the JSON string starting at raw[i]
// (a quote).
func stringEnd(raw string, i int) (int, bool) {
	for i++; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return 0, false
}

func skipSpace(raw string, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// scanWeights reads the JSON object of names to numbers at s[i], returning
// where it ends; ok is false for anything it does not read exactly as
// json.Unmarshal into a map[string]float64 would.
func scanWeights(s string, i int) (w map[string]float64, end int, ok bool) {
	if i >= len(s) || s[i] != '{' {
		return nil, 0, false
	}
	// The map sized once: a colon a pair up to the first closing brace,
	// where the object ends unless a name holds one.
	n := 0
	if e := strings.IndexByte(s[i:], '}'); e >= 0 {
		n = strings.Count(s[i:i+e], ":")
	}
	w = make(map[string]float64, n)
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		return w, i + 1, true
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return nil, 0, false
		}
		name, j, ok := scanName(s, i)
		if !ok {
			return nil, 0, false
		}
		j = skipSpace(s, j)
		if j >= len(s) || s[j] != ':' {
			return nil, 0, false
		}
		j = skipSpace(s, j+1)
		k := numberEnd(s, j)
		if k == j {
			return nil, 0, false
		}
		v, err := strconv.ParseFloat(s[j:k], 64)
		if err != nil {
			// out of range: json's error, from json
			return nil, 0, false
		}
		w[name] = v
		k = skipSpace(s, k)
		if k >= len(s) {
			return nil, 0, false
		}
		switch s[k] {
		case ',':
			i = skipSpace(s, k+1)
		case '}':
			return w, k + 1, true
		default:
			return nil, 0, false
		}
	}
}

// scanName reads the JSON string at obj[i]: printable ASCII and valid UTF-8
// as it is, and the \u escapes of the basic plane that the writer makes of
// <, > and & (json.Marshal's HTML escaping); ok is false for any other
// escape, which json.Unmarshal then reads.
func scanName(obj string, i int) (name string, end int, ok bool) {
	j := i + 1
	plain := true
	for ; j < len(obj) && obj[j] != '"'; j++ {
		c := obj[j]
		if c < 0x20 {
			return "", 0, false
		}
		if c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		if j >= len(obj) {
			return "", 0, false
		}
		// a piece of the file: no copy of the name
		return obj[i+1 : j], j + 1, true
	}
	buf := make([]byte, 0, 64)
	buf = append(buf, obj[i+1:j]...)
	for j < len(obj) {
		c := obj[j]
		switch {
		case c == '"':
			return string(buf), j + 1, true
		case c < 0x20:
			return "", 0, false
		case c == '\\':
			if j+5 >= len(obj) || obj[j+1] != 'u' {
				return "", 0, false
			}
			r, err := strconv.ParseUint(obj[j+2:j+6], 16, 16)
			if err != nil || r < 0x20 || r >= 0xd800 && r < 0xe000 {
				return "", 0, false
			}
			buf = utf8.AppendRune(buf, rune(r))
			j += 6
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(obj[j:])
			if r == utf8.RuneError && size == 1 {
				return "", 0, false
			}
			buf = append(buf, obj[j:j+size]...)
			j += size
		default:
			buf = append(buf, c)
			j++
		}
	}
	return "", 0, false
}

// numberEnd returns the end of the JSON number at obj[i] (i itself when
// there is none): -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, the
// grammar json accepts, which strconv.ParseFloat's wider one holds.
func numberEnd(obj string, i int) int {
	start := i
	digits := func(j int) int {
		for j < len(obj) && obj[j] >= '0' && obj[j] <= '9' {
			j++
		}
		return j
	}
	if i < len(obj) && obj[i] == '-' {
		i++
	}
	switch {
	case i < len(obj) && obj[i] == '0':
		i++
	case i < len(obj) && obj[i] >= '1' && obj[i] <= '9':
		i = digits(i + 1)
	default:
		return start
	}
	if i < len(obj) && obj[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return start
		}
		i = j
	}
	if i < len(obj) && (obj[i] == 'e' || obj[i] == 'E') {
		j := i + 1
		if j < len(obj) && (obj[j] == '+' || obj[j] == '-') {
			j++
		}
		k := digits(j)
		if k == j {
			return start
		}
		i = k
	}
	return i
}
