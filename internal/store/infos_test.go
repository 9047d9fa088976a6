package store

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// infosManifest is a manifest of n entries whose JSON is decoded on first
// use, entry bad (if ≥ 0) damaged.
func infosManifest(t *testing.T, n, bad int) *manifest {
	m := newManifest()
	for i := range n {
		id := fmt.Sprintf("doc-%05d", i)
		e := entry{Dir: id + "@1", Info: DocInfo{ID: id, Name: id + ".txt", Format: "text", Runes: i},
			Files: files{Artifacts: map[string]fileSum{"review": {SHA256: strings.Repeat("a", 63) + fmt.Sprint(i%10), Size: 1}}}}
		raw, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if i == bad {
			raw = raw[:len(raw)/2]
		}
		m.Docs[id] = &lazyEntry{dir: e.Dir, raw: raw, off: -1}
	}
	return m
}

// A listing decoded on several cores is the listing one decoder makes, and
// a damaged record still fails it.
func TestInfosParallelLikeOne(t *testing.T) {
	n := 3*parallelInfos + 17
	got, err := infosManifest(t, n, -1).infos("c", nil)
	if err != nil {
		t.Fatal(err)
	}
	one := infosManifest(t, n, -1)
	var want []DocInfo
	for id, l := range one.Docs {
		e, err := l.in("c", id)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, e.info())
	}
	sortInfos(got)
	sortInfos(want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("listings differ: %d and %d entries", len(got), len(want))
	}
	if _, err := infosManifest(t, n, n/2).infos("c", nil); err == nil || !strings.Contains(err.Error(), "damaged manifest record") {
		t.Fatalf("damaged record: err %v", err)
	}
	// keep still chooses
	some, err := infosManifest(t, n, -1).infos("c", func(id string, _ *lazyEntry) bool { return strings.HasSuffix(id, "7") })
	if err != nil || len(some) != (n+3)/10 {
		t.Fatalf("kept %d of %d, err %v", len(some), n, err)
	}
}
