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

// BenchmarkDisplayCUAD shows every CUAD corpus document as the faces do
// from the index's names (Display of FromList of All; skipped without
// ../shared/data): a server's document list of a large collection shows
// every contract.
func BenchmarkDisplayCUAD(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "data", "legalbenchrag", "corpus", "cuad", "*.txt"))
	if len(files) == 0 {
		b.Skip("../shared/data not present")
	}
	lists := make([][]Name, len(files))
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		lists[i] = Learn(string(data), f).All()
	}
	b.ReportAllocs()
	for b.Loop() {
		for i, l := range lists {
			Display(FromList(l, files[i]), files[i])
		}
	}
}
