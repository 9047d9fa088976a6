package store

import (
	"slices"
	"testing"
)

func TestBatch(t *testing.T) {
	s := openTemp(t)
	var flushed []int
	b := &Batch{Store: s, Collection: DefaultCollection, Size: 2, Flushed: func(put int) { flushed = append(flushed, put) }}
	for _, name := range []string{"a.txt", "b.txt", "c.txt", "d.txt", "e.txt"} {
		must(t, b.Add(t.Context(), record(name, "v1")))
	}
	if l := mustList(t, s, DefaultCollection); len(l) != 4 {
		t.Errorf("before Flush: %d documents stored, want the 4 of two full batches", len(l))
	}
	must(t, b.Flush(t.Context()))
	must(t, b.Flush(t.Context())) // nothing queued: no call
	if l := mustList(t, s, DefaultCollection); len(l) != 5 {
		t.Errorf("after Flush: %d documents stored, want 5", len(l))
	}
	if want := []int{2, 4, 5}; !slices.Equal(flushed, want) {
		t.Errorf("Flushed called with %v, want %v", flushed, want)
	}
	if b.Put() != 5 {
		t.Errorf("Put() = %d, want 5", b.Put())
	}
}
