package detect

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/pakton/pakton/internal/document"
)

// TestMemoOncePerKey checks that what the layers above derive from a
// prepared contract is built once per key, however many goroutines ask,
// and that keys do not share a value.
func TestMemoOncePerKey(t *testing.T) {
	text := "1. Term. This Agreement runs for two years.\n\n2. Law. The laws of Delaware govern it."
	p, err := Prepare(Doc{ID: "d", Name: "d.txt", Doc: &document.Document{ID: "d", Name: "d.txt", Format: "text", Text: text}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Passages()) == 0 {
		t.Fatal("no passages")
	}
	type key int
	var built [2]atomic.Int32
	var wg sync.WaitGroup
	got := make([][2]int, 16)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 2 {
				got[g][k] = p.Memo(key(k), func() any { built[k].Add(1); return 10 + k }).(int)
			}
		}()
	}
	wg.Wait()
	for k := range 2 {
		if n := built[k].Load(); n != 1 {
			t.Errorf("key %d built %d times, want once", k, n)
		}
	}
	for g := range got {
		if got[g] != [2]int{10, 11} {
			t.Errorf("goroutine %d got %v, want [10 11]", g, got[g])
		}
	}
	if _, err := Prepare(Doc{Name: "empty"}); err == nil {
		t.Error("a document with no text was prepared")
	}
}
