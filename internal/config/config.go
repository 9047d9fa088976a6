// Package config reads pakton's environment configuration. Every environment
// variable pakton honours is read here, so "which variables exist and what do
// they default to" has one answer. Command-line flags override these values;
// the CLI uses them as the flags' defaults.
package config

import (
	"os"
	"path/filepath"
	"strings"
)

// Environment variables read by this package.
const (
	// EnvStore names the store directory (see StoreDir).
	EnvStore = "PAKTON_STORE"
	// EnvCollection names the collection commands work on (see Collection).
	EnvCollection = "PAKTON_COLLECTION"
)

// DefaultCollection is the collection used when none is configured. It is
// the store's implicit default collection.
const DefaultCollection = "default"

// StoreDir returns the store directory: $PAKTON_STORE when set, else
// $XDG_DATA_HOME/pakton, else ~/.local/share/pakton. When not even the home
// directory is known it falls back to ".pakton" in the working directory.
func StoreDir() string {
	if v := strings.TrimSpace(os.Getenv(EnvStore)); v != "" {
		return v
	}
	return DefaultStoreDir()
}

// DefaultStoreDir returns the store directory used when $PAKTON_STORE is
// not set: $XDG_DATA_HOME/pakton, else ~/.local/share/pakton, else ".pakton"
// in the working directory.
func DefaultStoreDir() string {
	if v := strings.TrimSpace(os.Getenv("XDG_DATA_HOME")); v != "" && filepath.IsAbs(v) {
		return filepath.Join(v, "pakton")
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return filepath.Join(home, ".local", "share", "pakton")
	}
	return ".pakton"
}

// Collection returns the configured collection: $PAKTON_COLLECTION when set,
// else DefaultCollection.
func Collection() string {
	if v := strings.TrimSpace(os.Getenv(EnvCollection)); v != "" {
		return v
	}
	return DefaultCollection
}

// Var describes one environment variable for help output.
type Var struct {
	Name        string
	Value       string // the effective value
	Description string
}

// Vars lists the environment variables pakton reads with their effective
// values, for "pakton help"-style output.
func Vars() []Var {
	return []Var{
		{EnvStore, StoreDir(), "store directory (default $XDG_DATA_HOME/pakton or ~/.local/share/pakton), or weaviate://host:port[,host:port…][?replicas=3]"},
		{EnvCollection, Collection(), "collection to work on (default \"default\")"},
	}
}
