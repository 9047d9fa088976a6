package review_test

import (
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/reviewtest"
)

func TestChoose(t *testing.T) {
	builtin, _ := review.Builtin()
	cases := []struct {
		name, pb string
		yaml     []byte
		provs    []string
		want     int    // provisions
		err      string // part of the error
	}{
		{"builtin by default", "", nil, nil, len(builtin.Provisions), ""},
		{"builtin by name", "builtin", nil, []string{"governing law"}, 1, ""},
		{"unknown name", "mine", nil, nil, 0, `unknown playbook "mine"`},
		{"yaml", "", reviewtest.PlaybookYAML, nil, 4, ""},
		{"yaml narrowed", "ignored", reviewtest.PlaybookYAML, []string{"Confidentiality", "governing law"}, 2, ""},
		{"yaml error", "", []byte("provisions:\n  - name: A\n    definiton: x\n"), nil, 0, "up.yaml: line 3"},
		{"unknown provision", "", reviewtest.PlaybookYAML, []string{"Nope"}, 0, `no provision "Nope"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pb, det, err := review.Choose(c.pb, "up.yaml", c.yaml, c.provs)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || det == nil || len(pb.Provisions) != c.want {
				t.Fatalf("%v, %d provisions, want %d", err, len(pb.Provisions), c.want)
			}
		})
	}
}
