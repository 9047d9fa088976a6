package review

import (
	"fmt"
	"strings"

	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// BuiltinName names the shipped playbook in the faces (CLI, HTTP API, MCP).
const BuiltinName = "builtin"

// Choose returns the playbook a face was asked for, narrowed to provisions
// (all when empty), and the detectors to find it with. With yamlText, the
// playbook is parsed from it (source names it in errors, e.g. the file);
// otherwise name must be BuiltinName or empty. A user's playbook is found
// with the built-in detectors for provisions that share a built-in name and
// zero-shot, calibrated by the same detectors, for the others.
func Choose(name, source string, yamlText []byte, provisions []string) (*playbook.Playbook, *detect.Detectors, error) {
	pb, det := Builtin()
	if strings.TrimSpace(string(yamlText)) != "" {
		own, err := playbook.ParsePlaybook(source, yamlText)
		if err != nil {
			return nil, nil, err
		}
		pb = own
	} else if name != "" && name != BuiltinName {
		return nil, nil, fmt.Errorf("unknown playbook %q (the built-in one is %q; or give your own playbook's YAML)", name, BuiltinName)
	}
	pb, err := pb.Select(provisions)
	if err != nil {
		return nil, nil, err
	}
	return pb, det, nil
}
