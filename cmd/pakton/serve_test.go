package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/config"
)

// TestKeysCLI creates, lists and revokes keys; the secret is printed once
// and stored only hashed.
func TestKeysCLI(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	t.Setenv(config.EnvStore, dir)
	out, errOut, err := capture(t, runKeys, "create", "--collection", "deals", "--name", "alice")
	if err != nil {
		t.Fatal(err)
	}
	secret := strings.TrimSpace(out)
	if !strings.HasPrefix(secret, auth.Prefix) || !strings.Contains(errOut, "collection deals") {
		t.Fatalf("create printed %q / %q", out, errOut)
	}
	raw, _ := os.ReadFile(auth.File(dir))
	if strings.Contains(string(raw), secret) {
		t.Error("key file holds the secret")
	}
	if _, _, err := capture(t, runKeys, "create", "--admin"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := capture(t, runKeys, "create"); err == nil {
		t.Error("create without --collection or --admin succeeded")
	}
	if _, _, err := capture(t, runKeys, "create", "--admin", "--collection", "x"); err == nil {
		t.Error("create with both --collection and --admin succeeded")
	}
	out, _, err = capture(t, runKeys, "list")
	if err != nil || !strings.Contains(out, "collection deals") || !strings.Contains(out, "admin") || strings.Contains(out, secret) {
		t.Fatalf("list: %v\n%s", err, out)
	}
	r, _ := auth.Open(t.Context(), dir)
	k, ok := r.Lookup(t.Context(), secret)
	if !ok {
		t.Fatal("created key not found")
	}
	if out, _, err = capture(t, runKeys, "revoke", k.ID); err != nil || !strings.Contains(out, "revoked") {
		t.Fatalf("revoke: %v %s", err, out)
	}
	if _, ok := r.Lookup(t.Context(), secret); ok {
		t.Error("revoked key still valid")
	}
	if _, _, err := capture(t, runKeys, "revoke", k.ID); err == nil {
		t.Error("revoking twice succeeded")
	}
}

// TestServeCLI: --no-auth is refused off loopback; the first start creates
// and prints an admin key with a login URL, later starts do not.
func TestServeCLI(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	t.Setenv(config.EnvStore, dir)
	noModel(t)
	run := func(args ...string) (string, error) {
		var errOut bytes.Buffer
		stdout, stderr = &bytes.Buffer{}, &errOut
		defer func() { stdout, stderr = os.Stdout, os.Stderr }()
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // serve, then shut down at once
		err := runServe(ctx, args)
		return errOut.String(), err
	}
	if out, err := run("--no-auth", "--addr", "0.0.0.0:0"); err == nil || !strings.Contains(err.Error(), "loopback") ||
		!strings.Contains(out, "created a new, empty store at "+dir) {
		t.Errorf("--no-auth on 0.0.0.0: %v\n%s", err, out)
	}
	out, err := run("--addr", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "created an admin API key") || !strings.Contains(out, "/#key="+auth.Prefix) {
		t.Errorf("first start printed:\n%s", out)
	}
	// Later starts print no secret, but say that keys exist and how to get
	// another one.
	out, err = run("--addr", "127.0.0.1:0")
	if err != nil || strings.Contains(out, "created an admin API key") || strings.Contains(out, auth.Prefix) || strings.Contains(out, "created a new") {
		t.Errorf("second start: %v\n%s", err, out)
	}
	for _, want := range []string{"the store has 1 API key (1 admin)", "pakton keys create --admin --name NAME --store " + dir, "/#key=<the new key>"} {
		if !strings.Contains(out, want) {
			t.Errorf("second start does not say %q:\n%s", want, out)
		}
	}
	if out, err = run("--no-auth", "--addr", "127.0.0.1:0"); err != nil || !strings.Contains(out, "no-auth") {
		t.Errorf("--no-auth on loopback: %v\n%s", err, out)
	}
}
