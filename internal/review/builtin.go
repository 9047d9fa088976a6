package review

import (
	"embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// The built-in playbook and the detectors trained for it ship inside the
// binary. builtin/detectors.json is reproduced by the command in its
// "command" field (see docs/PLAYBOOKS.md).
//
//go:embed builtin/playbook.yaml builtin/detectors.json
var builtinFS embed.FS

// builtinDetectorsText is the shipped detectors file, read in place (an
// embed.FS read copies it, touching every page of 5 MB).
//
//go:embed builtin/detectors.json
var builtinDetectorsText string

var builtinPlaybook = sync.OnceValue(func() *playbook.Playbook {
	data, err := builtinFS.ReadFile("builtin/playbook.yaml")
	if err != nil {
		panic(fmt.Sprintf("review: built-in playbook missing: %v", err))
	}
	pb, err := playbook.ParsePlaybook("builtin", data)
	if err != nil {
		panic(fmt.Sprintf("review: built-in playbook: %v", err))
	}
	return pb
})

var builtinOnce = sync.OnceValues(func() (*playbook.Playbook, *detect.Detectors) {
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
func Builtin() (*playbook.Playbook, *detect.Detectors) { return builtinOnce() }

// BuiltinDetectorsData decodes the shipped detectors afresh.
func BuiltinDetectorsData() (*detect.Detectors, error) {
	data, err := builtinFS.ReadFile("builtin/detectors.json")
	if err != nil {
		return nil, err
	}
	return detect.DecodeDetectors("builtin", data)
}

// builtinLazy is the shipped detectors with each model left encoded until a
// question needs it: a search that asks about one provision decodes one
// model, not the whole 5 MB file.
var builtinLazy = sync.OnceValues(func() (*lazyDetectors, error) {
	return decodeLazy("builtin", builtinDetectorsText)
})

// lazyDetectors is a detectors file whose models are decoded on demand.
// Save writes the models last, so everything else is read without scanning
// them; the models array is then scanned only as far as a model asked for.
type lazyDetectors struct {
	name string
	head detect.Detectors // everything but the models

	mu      sync.Mutex
	data    string   // the file
	next    int      // where the models array's next unscanned element starts looking; -1 once all are scanned
	raw     []string // of the models scanned: pieces of data
	names   []string // of raw's models
	decoded map[int]*detect.Model
}

func decodeLazy(name string, data string) (*lazyDetectors, error) {
	l := &lazyDetectors{name: name, decoded: map[int]*detect.Model{}, next: -1}
	dec := json.NewDecoder(strings.NewReader(data))
	modelsAt := -1
	if t, err := dec.Token(); err == nil && t == json.Delim('{') {
		for dec.More() {
			before := dec.InputOffset()
			t, err := dec.Token()
			if err != nil {
				break
			}
			if t == "models" {
				// The head is the object up to this key.
				head := []byte(strings.TrimRight(data[:before], " \t\r\n,") + "}")
				if err := json.Unmarshal(head, &l.head); err != nil {
					return nil, fmt.Errorf("detectors %s: %w", name, err)
				}
				// The offset is just past the key; the list starts after its colon.
				if i := strings.IndexByte(data[dec.InputOffset():], '['); i >= 0 {
					modelsAt = int(dec.InputOffset()) + i
				}
				break
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				break
			}
		}
	}
	tail := strings.TrimRight(data, " \t\r\n")
	if modelsAt < 0 || l.head.IDF == nil || len(tail) == 0 || !strings.HasSuffix(strings.TrimRight(tail[:len(tail)-1], " \t\r\n"), "]") {
		// Not laid out as Save writes it (models last): decode it all.
		d, err := detect.DecodeDetectors(name, []byte(data))
		if err != nil {
			return nil, err
		}
		l.head = *d
		l.head.Models = nil
		for k, m := range d.Models {
			l.raw = append(l.raw, "")
			l.names = append(l.names, m.Name)
			l.decoded[k] = m
		}
		return l, nil
	}
	if l.head.Format != detect.DetectorFormat {
		return nil, fmt.Errorf("detectors %s: format %d, this pakton reads format %d (retrain with \"pakton review train\")", name, l.head.Format, detect.DetectorFormat)
	}
	l.data, l.next = data, modelsAt+1
	return l, nil
}

// find returns the index of the model named name (case-insensitively),
// scanning further into the models array as needed; -1 when there is none.
// l.mu must be held.
func (l *lazyDetectors) find(name string) (int, error) {
	if k := slices.IndexFunc(l.names, func(n string) bool { return strings.EqualFold(n, name) }); k >= 0 {
		return k, nil
	}
	for l.next >= 0 {
		start, end, ok := nextObject(l.data, l.next)
		if !ok {
			l.next = -1
			break
		}
		l.next = end
		raw := l.data[start:end]
		n, err := modelName(raw)
		if err != nil || n == "" {
			return -1, fmt.Errorf("detectors %s: a model has no name", l.name)
		}
		l.raw = append(l.raw, raw)
		l.names = append(l.names, n)
		if strings.EqualFold(n, name) {
			return len(l.names) - 1, nil
		}
	}
	return -1, nil
}

// nextObject finds the next JSON object of an array from offset i: its
// bytes [start, end). ok is false at the array's end. A byte scan (strings
// and escapes respected): validating JSON costs several times more, and the
// object is decoded anyway when its model is used.
func nextObject(s string, i int) (start, end int, ok bool) {
	for ; i < len(s) && s[i] != '{'; i++ {
		if s[i] == ']' {
			return 0, 0, false
		}
	}
	start, depth, inStr := i, 0, false
	for ; i < len(s); i++ {
		c := s[i]
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
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return start, i + 1, true
			}
		}
	}
	return 0, 0, false
}

// modelName reads a model's "name" without decoding its weights (Save
// writes the name first).
func modelName(raw string) (string, error) {
	dec := json.NewDecoder(strings.NewReader(raw))
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
func (l *lazyDetectors) forPlaybook(pb *playbook.Playbook) (*detect.Detectors, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
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
		k, err := l.find(name)
		if err != nil {
			return nil, err
		}
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

// model decodes model k; l.mu must be held.
func (l *lazyDetectors) model(k int) (*detect.Model, error) {
	if m, ok := l.decoded[k]; ok {
		return m, nil
	}
	m, err := detect.DecodeModel(l.raw[k])
	if err != nil {
		return nil, fmt.Errorf("detectors %s: model %s: %w", l.name, l.names[k], err)
	}
	for w, v := range m.Weights {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("detectors %s: model %q: weight of %q is not a number", l.name, m.Name, w)
		}
	}
	l.decoded[k] = m
	return m, nil
}
