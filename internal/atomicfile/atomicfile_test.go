package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	tests := []struct {
		name    string
		old     string // "" = no file before
		write   func(io.Writer) error
		want    string // content after
		wantErr bool
	}{
		{"new file", "", text("hello"), "hello", false},
		{"replaces", "old content", text("new"), "new", false},
		{"empty content", "old", text(""), "", false},
		{"failed write keeps the old file", "old", func(w io.Writer) error {
			io.WriteString(w, "half")
			return errors.New("disk on fire")
		}, "old", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.json")
			if tt.old != "" {
				if err := os.WriteFile(path, []byte(tt.old), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := WriteFunc(path, 0o600, tt.write)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name %s", err, path)
			}
			got, rerr := os.ReadFile(path)
			if tt.old == "" && tt.wantErr {
				if !errors.Is(rerr, os.ErrNotExist) {
					t.Errorf("file exists after a failed first write")
				}
			} else if string(got) != tt.want {
				t.Errorf("content = %q, want %q", got, tt.want)
			}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if strings.HasPrefix(e.Name(), TempPrefix) {
					t.Errorf("temporary file %s left behind", e.Name())
				}
			}
		})
	}
}

func TestWritePerm(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.json")
	if err := Write(path, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("mode %v: a 0600 file is readable by others", fi.Mode().Perm())
	}
}

func TestWriteMissingDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "f")
	if err := Write(path, []byte("x"), 0o644); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
}

func TestCreateSyncedRefusesExisting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CreateSynced(path, 0o644, text("x")); err == nil {
		t.Fatal("CreateSynced overwrote an existing file")
	}
	if got, _ := os.ReadFile(path); string(got) != "keep" {
		t.Errorf("content = %q", got)
	}
}

func TestTempName(t *testing.T) {
	a, b := TempName(), TempName()
	if a == b || !strings.HasPrefix(a, TempPrefix) {
		t.Errorf("TempName() = %q, %q", a, b)
	}
}

func text(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}
