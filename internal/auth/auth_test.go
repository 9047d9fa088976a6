package auth

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestKeyring(t *testing.T) {
	dir := t.TempDir()
	r, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	secret, k, err := r.Create(t.Context(), "deals", "alice", false)
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
	got, ok := r.Lookup(t.Context(), secret)
	if !ok || got.ID != k.ID || !got.Allows("deals") || got.Allows("other") || got.Allows("") {
		t.Errorf("Lookup: %+v %v", got, ok)
	}
	for _, bad := range []string{"", "pk_", secret + "x", secret[:len(secret)-1], strings.ToUpper(secret)} {
		if _, ok := r.Lookup(t.Context(), bad); ok {
			t.Errorf("Lookup(%q) matched", bad)
		}
	}
	adminSecret, ak, _ := r.Create(t.Context(), "", "ops", true)
	if a, ok := r.Lookup(t.Context(), adminSecret); !ok || !a.Admin || !a.Allows("anything") || ak.Collection != "" {
		t.Errorf("admin key %+v", a)
	}
	if _, _, err := r.Create(t.Context(), "Bad/Name", "", false); err == nil {
		t.Error("bad collection name accepted")
	}

	// Another process (a second keyring on the same file) revokes; this one
	// notices at its next lookup.
	time.Sleep(10 * time.Millisecond)
	other, _ := Open(t.Context(), dir)
	if err := other.Revoke(t.Context(), k.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Lookup(t.Context(), secret); ok {
		t.Error("revoked key still works")
	}
	if err := other.Revoke(t.Context(), k.ID); err == nil {
		t.Error("revoking twice succeeded")
	}
	if n := r.Len(t.Context()); n != 1 {
		t.Errorf("%d keys left", n)
	}
}

func TestEnsureAdmin(t *testing.T) {
	r, _ := Open(t.Context(), t.TempDir())
	s1, err := r.EnsureAdmin(t.Context(), "local")
	if err != nil || s1 == "" {
		t.Fatalf("first EnsureAdmin: %q %v", s1, err)
	}
	if s2, _ := r.EnsureAdmin(t.Context(), "local"); s2 != "" {
		t.Error("second EnsureAdmin created another key")
	}
	k, ok := r.Lookup(t.Context(), s1)
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

// Writers in different processes used to overwrite each other's changes:
// 20 parallel "pakton keys create" left 2 keys, and a revoke racing a
// create was undone. Each Keyring here has its own open lock file, as a
// separate process does (flock locks belong to the open file).
func TestKeyringConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	const writers = 20
	rings := make([]*Keyring, writers)
	for i := range rings {
		r, err := Open(t.Context(), dir)
		if err != nil {
			t.Fatal(err)
		}
		rings[i] = r
	}
	victimSecret, victim, err := rings[0].Create(t.Context(), "deals", "to revoke", false)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i, r := range rings {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == writers/2 {
				errs <- r.Revoke(t.Context(), victim.ID)
				return
			}
			_, _, err := r.Create(t.Context(), "deals", fmt.Sprintf("writer %d", i), false)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	fresh, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if n := fresh.Len(t.Context()); n != writers-1 {
		t.Errorf("%d keys after %d concurrent creates, want %d", n, writers-1, writers-1)
	}
	for _, r := range append(rings, fresh) {
		if _, ok := r.Lookup(t.Context(), victimSecret); ok {
			t.Fatal("a revoked key still authenticates")
		}
	}
}
