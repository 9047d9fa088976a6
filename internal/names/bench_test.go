package names

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkLearnCUAD learns the names of every CUAD corpus document (skipped
// without ../shared/data).
func BenchmarkLearnCUAD(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "data", "legalbenchrag", "corpus", "cuad", "*.txt"))
	if len(files) == 0 {
		b.Skip("../shared/data not present")
	}
	var texts []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, string(data))
	}
	b.ResetTimer()
	for range b.N {
		for i, t := range texts {
			Learn(t, files[i])
		}
	}
}
