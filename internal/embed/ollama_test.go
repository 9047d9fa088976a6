package embed

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/llm/ollamatest"
)

// TestOllamaEmbeddings embeds through a real Ollama server (PAKTON_OLLAMA=1)
// with the tiny random-weight BERT model of internal/llm/ollamatest: the
// vectors' shape, order, batching and token usage, and a text longer than
// the model's context.
func TestOllamaEmbeddings(t *testing.T) {
	srv := ollamatest.Start(t, ollamatest.Options{Embed: ollamatest.EmbedSpec{TrainCtx: 512}})
	c, err := New(Config{BaseURL: srv.URL + "/v1", Model: srv.EmbedModel, BatchSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	texts := make([]string, 40)
	for i := range texts {
		texts[i] = fmt.Sprintf("Clause %d. The Supplier shall deliver %d units each month.", i, i*7)
	}
	texts[39] = texts[3] // equal texts must get equal vectors, wherever they sit
	vecs, err := c.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) || c.Dim() != 32 {
		t.Fatalf("%d vectors of dim %d, want %d of 32", len(vecs), c.Dim(), len(texts))
	}
	for i, v := range vecs {
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if math.Abs(math.Sqrt(n)-1) > 1e-3 {
			t.Errorf("vector %d has norm %.4f", i, math.Sqrt(n))
		}
	}
	if dot(vecs[3], vecs[39]) < 0.9999 {
		t.Errorf("equal texts: cosine %.5f", dot(vecs[3], vecs[39]))
	}
	if dot(vecs[3], vecs[4]) > 0.9999 {
		t.Error("different texts got the same vector")
	}
	if st := c.Stats(); st.Requests != 3 || st.Texts != 40 {
		t.Errorf("stats %+v, want 3 requests (batches of 16) and 40 texts", st)
	}

	// A text longer than the model's 512-token context.
	long := strings.Repeat("The Supplier shall indemnify the Customer. ", 200)
	v, err := c.Embed(ctx, []string{long})
	t.Logf("text of %d words past the context: err %v", len(strings.Fields(long)), err)
	if err == nil && (len(v) != 1 || len(v[0]) != 32) {
		t.Errorf("long text: %d vectors", len(v))
	}
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
