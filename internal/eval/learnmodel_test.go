package eval

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/learnq"
)

// TestShippedLearntModelRegenerates learns the shipped model again from the
// four development files, as go generate ./internal/learnq does (pakton
// eval legalbench --learn-write), and compares it with the committed
// internal/learnq/builtin.model byte for byte. PAKTON_SLOW=1; a few
// minutes.
func TestShippedLearntModelRegenerates(t *testing.T) {
	dir := sharedData(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	m, err := MethodByName("pakton")
	if err != nil {
		t.Fatal(err)
	}
	var benches []string
	for _, b := range DevBenchmarks {
		benches = append(benches, filepath.Join(dir, "benchmarks", b))
	}
	opt := Options{CorpusDir: filepath.Join(dir, "corpus"), Benches: benches, Scope: "corpus", Scopes: DevScopes, Method: m}
	lm, err := LearnModel(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := lm.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if buf.String() != learnq.BuiltinText() {
		t.Fatalf("internal/learnq/builtin.model differs from the model learnt now (%d bytes, %d groups; committed %d bytes): go generate ./internal/learnq", buf.Len(), lm.Groups(), len(learnq.BuiltinText()))
	}
}
