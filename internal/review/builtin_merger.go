package review

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// The built-in merger-agreement playbook and its detectors, trained on the
// labelled spans of MAUD's development half (docs/PLAYBOOKS.md, "The
// merger-agreement playbook"). The detectors file is reproduced by:
//
//go:generate sh -c "cd ../.. && go run ./cmd/pakton review train -q --playbook merger --labels ../shared/data/legalbenchrag/benchmarks/maud_dev.json --corpus ../shared/data/legalbenchrag/corpus --out internal/review/builtin/merger-detectors.json --version maud-dev-2"

//go:embed builtin/merger.yaml
var mergerYAML []byte

//go:embed builtin/merger-detectors.json
var mergerDetectorsJSON []byte

// MergerName names the built-in merger-agreement playbook in the faces.
const MergerName = "merger"

// BuiltinNames lists the built-in playbooks' names, the default first.
var BuiltinNames = []string{BuiltinName, MergerName}

// IsBuiltinName reports whether name names a built-in playbook
// (case-insensitively).
func IsBuiltinName(name string) bool {
	return slices.ContainsFunc(BuiltinNames, func(n string) bool { return strings.EqualFold(n, name) })
}

var mergerPlaybook = sync.OnceValue(func() *playbook.Playbook {
	pb, err := playbook.ParsePlaybook(MergerName, mergerYAML)
	if err != nil {
		panic(fmt.Sprintf("review: built-in merger playbook: %v", err))
	}
	return pb
})

var mergerDetectors = sync.OnceValues(func() (*detect.Detectors, error) {
	return detect.DecodeDetectors(MergerName, mergerDetectorsJSON)
})

// BuiltinPlaybook returns the built-in playbook called name ("" is the
// default one), without its detectors. It is shared: callers must not
// modify it.
func BuiltinPlaybook(name string) (*playbook.Playbook, error) {
	switch {
	case name == "" || strings.EqualFold(name, BuiltinName):
		return builtinPlaybook(), nil
	case strings.EqualFold(name, MergerName):
		return mergerPlaybook(), nil
	}
	return nil, fmt.Errorf("unknown playbook %q (the built-in ones are %s; or give your own playbook's YAML)", name, quotedList(BuiltinNames))
}

// BuiltinNamed returns the built-in playbook called name and the detectors
// shipped for it. Both are shared: callers must not modify them.
func BuiltinNamed(name string) (*playbook.Playbook, *detect.Detectors, error) {
	pb, err := BuiltinPlaybook(name)
	if err != nil {
		return nil, nil, err
	}
	if pb == mergerPlaybook() {
		det, err := mergerDetectors()
		if err != nil {
			return nil, nil, fmt.Errorf("review: built-in merger detectors: %w", err)
		}
		return pb, det, nil
	}
	pb, det := Builtin()
	return pb, det, nil
}

func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
