package review

import (
	"embed"
	"fmt"
	"sync"
)

// The built-in playbook and the detectors trained for it ship inside the
// binary. builtin/detectors.json is reproduced by the command in its
// "command" field (see docs/PLAYBOOKS.md).
//
//go:embed builtin/playbook.yaml builtin/detectors.json
var builtinFS embed.FS

var builtinOnce = sync.OnceValues(func() (*Playbook, *Detectors) {
	data, err := builtinFS.ReadFile("builtin/playbook.yaml")
	if err != nil {
		panic(fmt.Sprintf("review: built-in playbook missing: %v", err))
	}
	pb, err := ParsePlaybook("builtin", data)
	if err != nil {
		panic(fmt.Sprintf("review: built-in playbook: %v", err))
	}
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
