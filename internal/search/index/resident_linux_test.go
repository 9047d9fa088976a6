package index

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMappedResidentCountsMappedPages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 8<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := mapFile(f)
	if err != nil {
		t.Fatal(err)
	}
	defer m.unmap()
	before, ok := MappedResident()
	if !ok {
		t.Fatal("MappedResident unknown on Linux")
	}
	sum := 0
	for i := 0; i < len(m.data); i += 4096 {
		sum += int(m.data[i])
	}
	read, _ := MappedResident()
	m.dontNeed()
	after, _ := MappedResident()
	if read < before+6<<20 || after > read-6<<20 {
		t.Fatalf("mapped resident bytes %d, %d after reading 8 MB mapped, %d after releasing (sum %d)", before, read, after, sum)
	}
}
