package review

import (
	"strings"

	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// BuiltinName names the shipped default playbook in the faces (CLI, HTTP
// API, MCP); MergerName the merger-agreement one.
const BuiltinName = "builtin"

// Choose returns the playbook a face was asked for, narrowed to provisions
// (all when empty), and the detectors to find it with. With yamlText, the
// playbook is parsed from it (source names it in errors, e.g. the file);
// otherwise name must name a built-in playbook (BuiltinNames; empty is the
// default), found with the detectors shipped for it. A user's playbook is
// found with the default built-in detectors for provisions that share a
// built-in name and zero-shot, calibrated by the same detectors, for the
// others.
func Choose(name, source string, yamlText []byte, provisions []string) (*playbook.Playbook, *detect.Detectors, error) {
	var pb *playbook.Playbook
	var det *detect.Detectors
	if strings.TrimSpace(string(yamlText)) != "" {
		own, err := playbook.ParsePlaybook(source, yamlText)
		if err != nil {
			return nil, nil, err
		}
		_, det = Builtin()
		pb = own
	} else {
		var err error
		if pb, det, err = BuiltinNamed(name); err != nil {
			return nil, nil, err
		}
	}
	pb, err := pb.Select(provisions)
	if err != nil {
		return nil, nil, err
	}
	return pb, det, nil
}
