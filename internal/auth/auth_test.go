package auth

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

func TestKeyring(t *testing.T) {
	dir := t.TempDir()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	secret, k, err := r.Create("deals", "alice", false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, Prefix) || len(secret) != len(Prefix)+43 {
		t.Errorf("secret %q", secret)
	}
	raw, _ := os.ReadFile(File(dir))
	if strings.Contains(string(raw), secret) || !strings.Contains(string(raw), Hash(secret)) {
		t.Errorf("key file holds the secret or not its hash: %s", raw)
	}
	if fi, _ := os.Stat(File(dir)); fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v", fi.Mode())
	}
	got, ok := r.Lookup(secret)
	if !ok || got.ID != k.ID || !got.Allows("deals") || got.Allows("other") || got.Allows("") {
		t.Errorf("Lookup: %+v %v", got, ok)
	}
	for _, bad := range []string{"", "pk_", secret + "x", secret[:len(secret)-1], strings.ToUpper(secret)} {
		if _, ok := r.Lookup(bad); ok {
			t.Errorf("Lookup(%q) matched", bad)
		}
	}
	adminSecret, ak, _ := r.Create("", "ops", true)
	if a, ok := r.Lookup(adminSecret); !ok || !a.Admin || !a.Allows("anything") || ak.Collection != "" {
		t.Errorf("admin key %+v", a)
	}
	if _, _, err := r.Create("Bad/Name", "", false); err == nil {
		t.Error("bad collection name accepted")
	}

	// Another process (a second keyring on the same file) revokes; this one
	// notices at its next lookup.
	time.Sleep(10 * time.Millisecond)
	other, _ := Open(dir)
	if err := other.Revoke(k.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Lookup(secret); ok {
		t.Error("revoked key still works")
	}
	if err := other.Revoke(k.ID); err == nil {
		t.Error("revoking twice succeeded")
	}
	if n := r.Len(); n != 1 {
		t.Errorf("%d keys left", n)
	}
}

func TestEnsureAdmin(t *testing.T) {
	r, _ := Open(t.TempDir())
	s1, err := r.EnsureAdmin("local")
	if err != nil || s1 == "" {
		t.Fatalf("first EnsureAdmin: %q %v", s1, err)
	}
	if s2, _ := r.EnsureAdmin("local"); s2 != "" {
		t.Error("second EnsureAdmin created another key")
	}
	k, ok := r.Lookup(s1)
	if !ok || !k.Admin {
		t.Errorf("%+v", k)
	}
}

func TestContext(t *testing.T) {
	if _, ok := FromContext(context.Background()); ok {
		t.Error("key in an empty context")
	}
	k := Key{ID: "x", Collection: "c"}
	if got, ok := FromContext(WithKey(context.Background(), k)); !ok || got.ID != "x" {
		t.Error("key lost")
	}
}
