package review

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
)

// The built-in playbook and the detectors trained for it ship inside the
// binary. builtin/detectors.json is reproduced by the command in its
// "command" field (see docs/PLAYBOOKS.md).
//
//go:embed builtin/playbook.yaml builtin/detectors.json
var builtinFS embed.FS

var builtinPlaybook = sync.OnceValue(func() *Playbook {
	data, err := builtinFS.ReadFile("builtin/playbook.yaml")
	if err != nil {
		panic(fmt.Sprintf("review: built-in playbook missing: %v", err))
	}
	pb, err := ParsePlaybook("builtin", data)
	if err != nil {
		panic(fmt.Sprintf("review: built-in playbook: %v", err))
	}
	return pb
})

var builtinOnce = sync.OnceValues(func() (*Playbook, *Detectors) {
	pb := builtinPlaybook()
	det, err := BuiltinDetectorsData()
	if err != nil {
		panic(fmt.Sprintf("review: built-in detectors: %v", err))
	}
	return pb, det
})

// Builtin returns the shipped playbook (the 41 CUAD provision categories and
// the provisions of Addleshaw Goddard's due-diligence list) and the
// detectors trained for it. Both are shared: callers must not modify them.
func Builtin() (*Playbook, *Detectors) { return builtinOnce() }

// BuiltinDetectorsData decodes the shipped detectors afresh.
func BuiltinDetectorsData() (*Detectors, error) {
	data, err := builtinFS.ReadFile("builtin/detectors.json")
	if err != nil {
		return nil, err
	}
	return decodeDetectors("builtin", data)
}

// builtinLazy is the shipped detectors with each model left encoded until a
// question needs it: a search that asks about one provision decodes one
// model, not the whole 5 MB file.
var builtinLazy = sync.OnceValues(func() (*lazyDetectors, error) {
	data, err := builtinFS.ReadFile("builtin/detectors.json")
	if err != nil {
		return nil, err
	}
	return decodeLazy("builtin", data)
})

// lazyDetectors is a detectors file whose models are decoded on demand.
type lazyDetectors struct {
	name  string
	head  Detectors // everything but the models
	raw   []json.RawMessage
	names []string // of raw's models

	mu      sync.Mutex
	decoded map[int]*Model
}

func decodeLazy(name string, data []byte) (*lazyDetectors, error) {
	// Find the models array without decoding it (a byte scan; decoding
	// 4 MB of weights costs a one-shot search more than all the rest).
	start, end, elems, ok := modelsArray(data)
	if !ok {
		// Not laid out as Save writes it: decode it all.
		d, err := decodeDetectors(name, data)
		if err != nil {
			return nil, err
		}
		l := &lazyDetectors{name: name, head: *d, decoded: map[int]*Model{}}
		l.head.Models = nil
		for k, m := range d.Models {
			l.raw = append(l.raw, nil)
			l.names = append(l.names, m.Name)
			l.decoded[k] = m
		}
		return l, nil
	}
	head := make([]byte, 0, len(data)-(end-start)+2)
	head = append(append(append(head, data[:start]...), "[]"...), data[end:]...)
	l := &lazyDetectors{name: name, decoded: map[int]*Model{}}
	if err := json.Unmarshal(head, &l.head); err != nil {
		return nil, fmt.Errorf("detectors %s: %w", name, err)
	}
	if l.head.Format != DetectorFormat {
		return nil, fmt.Errorf("detectors %s: format %d, this pakton reads format %d (retrain with \"pakton review train\")", name, l.head.Format, DetectorFormat)
	}
	for _, e := range elems {
		raw := json.RawMessage(data[e[0]:e[1]])
		n, err := modelName(raw)
		if err != nil || n == "" {
			return nil, fmt.Errorf("detectors %s: a model has no name", name)
		}
		l.raw = append(l.raw, raw)
		l.names = append(l.names, n)
	}
	return l, nil
}

// modelsArray finds the value of the top-level "models" key of a detectors
// file: its byte range and the ranges of its elements.
func modelsArray(data []byte) (start, end int, elems [][2]int, ok bool) {
	key := bytes.Index(data, []byte(`"models":`))
	if key < 0 {
		return 0, 0, nil, false
	}
	i := key + len(`"models":`)
	for i < len(data) && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r') {
		i++
	}
	if i >= len(data) || data[i] != '[' {
		return 0, 0, nil, false
	}
	start = i
	depth, inStr, elem := 0, false, -1
	for ; i < len(data); i++ {
		c := data[i]
		if inStr {
			switch c {
			case '\\':
				i++
			case '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '[', '{':
			depth++
			if depth == 2 && c == '{' {
				elem = i
			}
		case ']', '}':
			depth--
			if depth == 1 && c == '}' && elem >= 0 {
				elems = append(elems, [2]int{elem, i + 1})
				elem = -1
			}
			if depth == 0 {
				return start, i + 1, elems, true
			}
		}
	}
	return 0, 0, nil, false
}

// modelName reads a model's "name" without decoding its weights (Save
// writes the name first).
func modelName(raw json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // {
		return "", err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", err
		}
		if k, _ := t.(string); k == "name" {
			var n string
			err := dec.Decode(&n)
			return n, err
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", err
		}
	}
	return "", nil
}

// forPlaybook returns the detectors with the models pb's provisions use
// decoded (the others left out).
func (l *lazyDetectors) forPlaybook(pb *Playbook) (*Detectors, error) {
	d := l.head
	for i := range pb.Provisions {
		p := &pb.Provisions[i]
		if strings.EqualFold(p.Detector, "none") {
			continue
		}
		name := p.Name
		if p.Detector != "" {
			name = p.Detector
		}
		k := slices.IndexFunc(l.names, func(n string) bool { return strings.EqualFold(n, name) })
		if k < 0 {
			continue
		}
		m, err := l.model(k)
		if err != nil {
			return nil, err
		}
		d.Models = append(d.Models, m)
	}
	return &d, nil
}

func (l *lazyDetectors) model(k int) (*Model, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if m, ok := l.decoded[k]; ok {
		return m, nil
	}
	var m Model
	if err := json.Unmarshal(l.raw[k], &m); err != nil {
		return nil, fmt.Errorf("detectors %s: model %s: %w", l.name, l.names[k], err)
	}
	for w, v := range m.Weights {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("detectors %s: model %q: weight of %q is not a number", l.name, m.Name, w)
		}
	}
	l.decoded[k] = &m
	return &m, nil
}
