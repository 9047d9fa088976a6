package config

import (
	"path/filepath"
	"testing"
)

func TestStoreDir(t *testing.T) {
	tests := []struct {
		name, store, xdg, home, want string
	}{
		{"env wins", "/srv/pakton", "/xdg", "/home/u", "/srv/pakton"},
		{"xdg", "", "/xdg", "/home/u", filepath.Join("/xdg", "pakton")},
		{"relative xdg ignored", "", "rel", "/home/u", filepath.Join("/home/u", ".local", "share", "pakton")},
		{"home", "", "", "/home/u", filepath.Join("/home/u", ".local", "share", "pakton")},
		{"blank env ignored", "  ", "", "/home/u", filepath.Join("/home/u", ".local", "share", "pakton")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvStore, tt.store)
			t.Setenv("XDG_DATA_HOME", tt.xdg)
			t.Setenv("HOME", tt.home)
			if got := StoreDir(); got != tt.want {
				t.Errorf("StoreDir() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCollection(t *testing.T) {
	t.Setenv(EnvCollection, "")
	if got := Collection(); got != DefaultCollection {
		t.Errorf("Collection() = %q, want %q", got, DefaultCollection)
	}
	t.Setenv(EnvCollection, "deal-room-7")
	if got := Collection(); got != "deal-room-7" {
		t.Errorf("Collection() = %q, want deal-room-7", got)
	}
	if len(Vars()) != 2 {
		t.Errorf("Vars() lists %d variables, want 2", len(Vars()))
	}
}
