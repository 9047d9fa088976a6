package server

import (
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/llm/llmtest"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/reviewtest"
)

// TestReviewModelCacheShared: every cell of a review on a server with a
// model is the model's (each provision costs an extraction and a
// follow-up), and a second review of the same collection answers from the
// collection's model cache.
func TestReviewModelCacheShared(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Turn{Name: "not found", Times: -1,
		JSON: map[string]any{"found": false, "quotes": []any{}, "value": "Not found", "confidence": 0.2}})
	e := newEnv(t, func(c *Config) {
		c.Models = llm.Roles{Default: llm.Config{BaseURL: srv.BaseURL(), Model: "scripted", MaxRetries: -1}}
	})
	key := e.key("deal")
	e.ingest("deal", key, file{"a.txt", contract("Alpha Ltd", "three years")}, file{"b.txt", contract("Bravo Inc", "one year")})
	req := map[string]any{"playbook_yaml": string(reviewtest.PlaybookYAML), "provisions": []string{"Governing Law", "Source Code Escrow"}}
	rv := e.startReviewOf("deal", key, req)
	if !strings.HasPrefix(rv.Model, "model=scripted;") {
		t.Errorf("review model = %q, want the scripted model's pass", rv.Model)
	}
	_, body := e.json("GET", "/api/v1/collections/deal/reviews/"+rv.ID, key, nil)
	tab := decode[struct{ Table review.Table }](t, body).Table
	for _, row := range tab.Rows {
		for _, c := range row.Cells {
			if c.Method != review.MethodModel || c.Found {
				t.Errorf("%s / %s: %+v, want the model's Not found", row.DocName, c.Provision, c)
			}
		}
	}
	calls := len(srv.Requests())
	if calls != 2*2*2 {
		t.Errorf("%d model requests, want 8 (2 contracts × 2 provisions × extraction and follow-up)", calls)
	}
	e.startReviewOf("deal", key, req)
	if n := len(srv.Requests()) - calls; n != 0 {
		t.Errorf("the second review made %d model requests, want 0 (cached)", n)
	}
	// Offline reviews stay offline.
	rv = e.startReviewOf("deal", key, map[string]any{"provisions": []string{"Governing Law"}, "offline": true})
	if rv.Model != "" || len(srv.Requests()) != calls {
		t.Errorf("an offline review used the model: %+v", rv)
	}
}
