package store

import (
	"os"
	"path/filepath"
	"testing"
)

// Exists tells a store from a missing directory, a plain file and a
// directory that is not a store, and creates nothing.
func TestExists(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(dir, "plain"), 0o755)
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"store", true},
		{"missing", false},
		{"file", false},
		{"plain", false},
	} {
		got, err := Exists(filepath.Join(dir, tc.name))
		if err != nil || got != tc.want {
			t.Errorf("Exists(%s) = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Error("Exists created the missing directory")
	}
}
