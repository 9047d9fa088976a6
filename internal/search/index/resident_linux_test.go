package index

import (
	"bytes"
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

func TestMappingReadsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	data := make([]byte, 10000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := mapFile(f)
	f.Close() // the mapping keeps its own descriptor
	if err != nil {
		t.Fatal(err)
	}
	defer m.unmap()
	b := make([]byte, 5000)
	if !m.readAt(b, 4321) || !bytes.Equal(b, data[4321:9321]) {
		t.Fatal("pread of the mapped file does not read it")
	}
	if m.readAt(b, 6000) {
		t.Fatal("a read past the end succeeded")
	}
}
