package tool_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/tool"
)

func TestGraphTools(t *testing.T) {
	dir := t.TempDir()
	text := "LICENCE AGREEMENT\n\n1. Definitions\n\n1.1 \"Licensed Software\" means the programs listed in Schedule 1.\n\n" +
		"2. Licence\n\n2.1 The Licensee may use the Licensed Software subject to Section 3.2.\n\n" +
		"3. Limits\n\n3.1 No sublicensing.\n\n3.2 Use is limited to ten seats, except as provided in Section 2 of the Master Agreement.\n"
	if err := os.WriteFile(filepath.Join(dir, "licence.txt"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if _, err := ingest.Ingest(ctx, st, "c", []string{filepath.Join(dir, "licence.txt")}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	c := &tool.Corpus{Store: st, Collection: "c"}
	dt := &tool.DefineTerm{Corpus: c}
	fr := &tool.FollowReference{Corpus: c}
	tests := []struct {
		name    string
		tool    tool.Tool
		args    string
		wantErr string
		wantTxt string
		wantEv  string // text the single evidence passage starts with
	}{
		{"term", dt, `{"term":"licensed software"}`, "", "", "\"Licensed Software\" means the programs"},
		{"undefined term", dt, `{"term":"Territory"}`, "", "\"Territory\" is not defined in licence.txt", ""},
		{"empty term", dt, `{"term":" "}`, "\"term\" is empty", "", ""},
		{"unknown document", dt, `{"term":"X","document":"nope.txt"}`, "no document has the id, name", "", ""},
		{"bad arguments", dt, `[1]`, "not a JSON object", "", ""},
		{"section", fr, `{"reference":"Section 3.2"}`, "", "", "3.2 Use is limited"},
		{"bare number", fr, `{"reference":"3.1","document":"licence.txt"}`, "", "", "3.1 No sublicensing."},
		{"missing schedule", fr, `{"reference":"Schedule 1"}`, "", "has no clause labelled so", ""},
		{"other agreement", fr, `{"reference":"Section 2 of the Master Agreement"}`, "", "points into Master Agreement", ""},
		{"not a reference", fr, `{"reference":"the licence fee"}`, "is not a reference pakton can read", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tt.tool.Call(ctx, json.RawMessage(tt.args))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Text, tt.wantTxt) {
				t.Errorf("text %q lacks %q", res.Text, tt.wantTxt)
			}
			if tt.wantEv == "" {
				if len(res.Evidence) != 0 {
					t.Errorf("evidence %+v, want none", res.Evidence)
				}
				return
			}
			if len(res.Evidence) != 1 || !strings.HasPrefix(res.Evidence[0].Text, tt.wantEv) || !strings.Contains(res.Text, "<contract_passage") {
				t.Errorf("evidence %+v, want one starting %q", res.Evidence, tt.wantEv)
			}
		})
	}
}
