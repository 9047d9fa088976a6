package store

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// smallListings makes writers write the listing file of collections of any
// size.
func smallListings(t *testing.T) {
	t.Helper()
	n := listingMinDocs
	t.Cleanup(func() { listingMinDocs = n })
	listingMinDocs = 1
}

// listingRecords puts documents of every kind of summary: in and out of
// archives and folders, attached to an e-mail, with times in other zones,
// without artifacts and with several; then replaces and deletes some.
func listingRecords(t *testing.T, s *Store, from, to int) {
	t.Helper()
	zones := []*time.Location{time.UTC, time.FixedZone("", 3600), time.FixedZone("", -5*3600-1800), time.Local}
	for i := from; i < to; i++ {
		name := fmt.Sprintf("c%02d.txt", i%37)
		rec := record(name, fmt.Sprint("v", i))
		rec.Source.SHA256 = strings.Repeat(fmt.Sprintf("%02x", i%6), 32)
		rec.Source.Size = int64(i * 1001)
		rec.Source.ModTime = time.Date(2020+i%5, time.Month(1+i%12), 1+i%28, i%24, 7, 9, i*1000, zones[i%len(zones)])
		if i%4 == 1 {
			rec.Source.IngestedAt = time.Date(2025, 3, 4, 5, 6, 7, 8, zones[(i+1)%len(zones)])
		}
		switch i % 5 {
		case 0:
			rec.Source.Archive, rec.Source.Entry, rec.Source.Folder = "room.zip", "01 Corporate/"+name, "01 Corporate"
		case 1:
			rec.Source.Parent = "mail.eml"
		case 2:
			rec.Artifacts = nil
		case 3:
			rec.Artifacts["zeta"] = []byte{byte(i)}
			rec.Artifacts["alpha"] = nil
		}
		must(t, s.Put(t.Context(), DefaultCollection, rec))
		if i%6 == 4 {
			must(t, s.Delete(t.Context(), DefaultCollection, DocID(name)))
		}
	}
}

// listingFromRecords is the collection's listing decoded from the records
// alone, by a reader that never reads a listing file.
func listingFromRecords(t *testing.T, s *Store) []DocInfo {
	t.Helper()
	var out []DocInfo
	b, err := os.ReadFile(filepath.Join(s.collectionDir(DefaultCollection), logName))
	must(t, err)
	m, _, err := applyLog(nil, b, 0)
	must(t, err)
	out, err = m.infos(DefaultCollection, nil)
	must(t, err)
	sortInfos(out)
	return out
}

// listAfresh lists the collection as a writer that just opened it does (its
// state and kept listing forgotten) and returns how many summaries it
// decoded from records.
func listAfresh(t *testing.T, s *Store) ([]DocInfo, int) {
	t.Helper()
	s.Forget(DefaultCollection)
	var decoded int
	must(t, s.viewState(DefaultCollection, func(cs *collState) error {
		_, n, err := s.listDocs(DefaultCollection, cs)
		decoded = n
		return err
	}))
	s.Forget(DefaultCollection)
	return mustList(t, s, DefaultCollection), decoded
}

func sameListing(t *testing.T, got, want []DocInfo) {
	t.Helper()
	if len(want) == 0 {
		t.Fatal("an empty listing tests nothing")
	}
	if !reflect.DeepEqual(got, want) {
		for i := range min(len(got), len(want)) {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("summary %d differs:\n got %#v\nwant %#v", i, got[i], want[i])
			}
		}
		t.Fatalf("%d summaries, want %d", len(got), len(want))
	}
}

// TestListingFileLikeRecords checks that a listing read from the listing
// file is exactly the one the records decode to — every field, the
// artifacts' names and checksums, the order — and stays so as documents
// are put, replaced and deleted after it was written.
func TestListingFileLikeRecords(t *testing.T) {
	smallListings(t)
	s := openTemp(t)
	listingRecords(t, s, 0, 60)
	path := filepath.Join(s.collectionDir(DefaultCollection), listingName)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a listing file before any listing: %v", err)
	}
	want := listingFromRecords(t, s)
	got, decoded := listAfresh(t, s)
	sameListing(t, got, want)
	if decoded != len(want) {
		t.Fatalf("the first listing decoded %d of %d summaries", decoded, len(want))
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no listing file written: %v", err)
	}
	got, decoded = listAfresh(t, s)
	sameListing(t, got, want)
	if decoded != 0 {
		t.Fatalf("the listing from the file decoded %d summaries", decoded)
	}

	// A document replaced after the file: only it is decoded, and the
	// listing is the records' own.
	file, err := os.ReadFile(path)
	must(t, err)
	listingRecords(t, s, 61, 62)
	want2 := listingFromRecords(t, s)
	got, decoded = listAfresh(t, s)
	sameListing(t, got, want2)
	if decoded != 1 {
		t.Fatalf("decoded %d summaries after one put", decoded)
	}
	if reflect.DeepEqual(want, want2) {
		t.Fatal("the later write changed nothing: the test tests nothing")
	}
	if now, _ := os.ReadFile(path); string(now) != string(file) {
		t.Fatal("the listing file was rewritten for one change")
	}
	// Puts, replacements and deletes of many: the file is written again.
	listingRecords(t, s, 62, 110)
	got, _ = listAfresh(t, s)
	sameListing(t, got, listingFromRecords(t, s))
	if now, _ := os.ReadFile(path); string(now) == string(file) {
		t.Fatal("the listing file was not rewritten after many changes")
	}
	_, decoded = listAfresh(t, s)
	if decoded != 0 {
		t.Fatalf("the rewritten file left %d summaries to decode", decoded)
	}

	// A reader never writes one.
	must(t, os.Remove(path))
	r, err := OpenReader(s.Dir())
	must(t, err)
	defer r.Close()
	sameListing(t, mustList(t, r, DefaultCollection), listingFromRecords(t, s))
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a reader wrote the listing file: %v", err)
	}
}

// TestListingFileDoubtFallsBack checks that a listing file that is torn,
// damaged, of another log or of a log changed behind the store's back is
// not used (the summaries are decoded from the records), that the listing
// is the records' own, and that the next listing writes a good file again.
func TestListingFileDoubtFallsBack(t *testing.T) {
	cases := map[string]func(t *testing.T, s *Store, file []byte) []byte{
		"torn":  func(t *testing.T, s *Store, file []byte) []byte { return file[:len(file)/2] },
		"empty": func(t *testing.T, s *Store, file []byte) []byte { return nil },
		"garbage": func(t *testing.T, s *Store, file []byte) []byte {
			return []byte(strings.Repeat("PKMLIST1 not a listing", 40))
		},
		"damaged": func(t *testing.T, s *Store, file []byte) []byte {
			b := slices.Clone(file)
			b[len(b)/2] ^= 0x20
			return b
		},
		"fields damaged, checksum fixed": func(t *testing.T, s *Store, file []byte) []byte {
			b := slices.Clone(file[:len(file)-4])
			for i := len(b) / 3; i < len(b); i += 97 {
				b[i] = 0xff
			}
			return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crcTable))
		},
		"other log": func(t *testing.T, s *Store, file []byte) []byte {
			// Compaction replaces the log: the file no longer describes it.
			defer func(n int) { compactMinDead = n }(compactMinDead)
			compactMinDead = 1
			listingRecords(t, s, 60, 130)
			return file
		},
		"log cut shorter": func(t *testing.T, s *Store, file []byte) []byte {
			// As if the log were restored from an older copy.
			path := filepath.Join(s.collectionDir(DefaultCollection), logName)
			lg, err := os.ReadFile(path)
			must(t, err)
			end := int(binary.LittleEndian.Uint64(file[len(listingMagic):]))
			must(t, os.Truncate(path, int64(strings.LastIndexByte(string(lg[:end-1]), '\n')+1)))
			return file
		},
		"log changed before its end": func(t *testing.T, s *Store, file []byte) []byte {
			// The same header and length, another last record: the
			// same document at the same version with another name.
			path := filepath.Join(s.collectionDir(DefaultCollection), logName)
			lg, err := os.ReadFile(path)
			must(t, err)
			end := int(binary.LittleEndian.Uint64(file[len(listingMagic):]))
			start := strings.LastIndexByte(string(lg[:end-1]), '\n') + 1
			f := strings.SplitN(string(lg[start : end-1])[9:], " ", 4)
			if f[0] != "P" {
				t.Fatalf("the last record is %q", f[0])
			}
			var gen uint64
			fmt.Sscan(f[1], &gen)
			body := strings.Replace(f[3], `"name":"c`, `"name":"C`, 1)
			if body == f[3] {
				t.Fatal("no name to change")
			}
			line := logLine('P', gen, f[2], []byte(body))
			changed := slices.Concat(lg[:start], line, lg[end:])
			must(t, os.WriteFile(path, changed, 0o644))
			return file
		},
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			smallListings(t)
			s := openTemp(t)
			listingRecords(t, s, 0, 60)
			listAfresh(t, s)
			path := filepath.Join(s.collectionDir(DefaultCollection), listingName)
			file, err := os.ReadFile(path)
			must(t, err)
			must(t, os.WriteFile(path, change(t, s, file), 0o644))
			// A store reopened, as after the change behind its back.
			must(t, s.Close())
			s2, err := Open(s.Dir())
			must(t, err)
			defer s2.Close()
			want := listingFromRecords(t, s2)
			got, decoded := listAfresh(t, s2)
			sameListing(t, got, want)
			if decoded != len(want) {
				t.Fatalf("decoded %d of %d summaries: the doubtful file was used", decoded, len(want))
			}
			got, decoded = listAfresh(t, s2)
			sameListing(t, got, want)
			if decoded != 0 {
				t.Fatalf("no good file written again: %d summaries decoded", decoded)
			}
		})
	}
}

// TestListedEncodesEveryField checks that a listing file keeps every field
// of a summary: each field of DocInfo and Source set in turn (a field added
// to either and left out of the file fails here).
func TestListedEncodesEveryField(t *testing.T) {
	base := listed{id: "doc", dir: "doc@7", info: DocInfo{ArtifactSums: map[string]string{}}}
	var variants []listed
	set := func(v reflect.Value, i int) {
		switch v.Kind() {
		case reflect.String:
			v.SetString(fmt.Sprintf("value %d é", i))
		case reflect.Int, reflect.Int64:
			v.SetInt(int64(-3*i - 1))
		case reflect.Slice:
			v.Set(reflect.ValueOf([]string{"a", "b"}))
		case reflect.Map:
			v.Set(reflect.ValueOf(map[string]string{"a": "sum a", "b": "sum b"}))
		case reflect.Struct:
			if v.Type() == reflect.TypeOf(time.Time{}) {
				v.Set(reflect.ValueOf(time.Date(2021, 2, 3, 4, 5, 6, 7+i, time.FixedZone("", 7200))))
				return
			}
			t.Fatalf("field of type %s: teach this test to set it", v.Type())
		default:
			t.Fatalf("field of kind %s: teach this test to set it", v.Kind())
		}
	}
	info := reflect.TypeOf(DocInfo{})
	for i := range info.NumField() {
		f := info.Field(i)
		if f.Name == "Artifacts" || f.Name == "ArtifactSums" {
			continue // set together below
		}
		d := base
		d.info.ArtifactSums = map[string]string{}
		if f.Type == reflect.TypeOf(Source{}) {
			for j := range f.Type.NumField() {
				d := d
				set(reflect.ValueOf(&d.info.Source).Elem().Field(j), j)
				variants = append(variants, d)
			}
			continue
		}
		set(reflect.ValueOf(&d.info).Elem().Field(i), i)
		variants = append(variants, d)
	}
	d := base
	d.info.Artifacts = []string{"a", "b"}
	d.info.ArtifactSums = map[string]string{"a": "sum a", "b": "sum b"}
	variants = append(variants, d)
	for _, v := range variants {
		b, err := appendListed(nil, v)
		must(t, err)
		got := decodeListed(string(b), 1)
		if len(got) != 1 {
			t.Fatalf("%+v did not decode", v.info)
		}
		// Times as JSON gives them back: the file promises the record's
		// own decoding, not the zone value put in.
		want := v
		for _, tm := range []*time.Time{&want.info.Source.ModTime, &want.info.Source.IngestedAt} {
			txt, err := tm.MarshalText()
			must(t, err)
			must(t, tm.UnmarshalText(txt))
		}
		if !reflect.DeepEqual(got[0], want) {
			t.Fatalf("round trip:\n got %#v\nwant %#v", got[0], want)
		}
	}
}

// FuzzDecodeListed checks that no listing file's documents make the reader
// fail otherwise than by refusing them.
func FuzzDecodeListed(f *testing.F) {
	d := listed{id: "doc", dir: "doc@7", info: DocInfo{ID: "doc", Name: "n", Artifacts: []string{"a"}, ArtifactSums: map[string]string{"a": "x"}}}
	b, err := appendListed(nil, d)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b), 1)
	f.Add(string(b)+string(b), 2)
	f.Fuzz(func(t *testing.T, text string, count int) {
		for _, d := range decodeListed(text, count) {
			if _, ok := dirRev(d.id, d.dir); !ok {
				t.Fatalf("a version directory %q of %q accepted", d.dir, d.id)
			}
			if len(d.info.Artifacts) != len(d.info.ArtifactSums) {
				t.Fatal("artifacts without their checksums accepted")
			}
		}
	})
}

// Listings asked at once (a server's opening and its first document list)
// make the listing once, and each is the records' own.
func TestListingsAtOnceMadeOnce(t *testing.T) {
	s := openTemp(t)
	listingRecords(t, s, 0, 60)
	want := listingFromRecords(t, s)
	s.Forget(DefaultCollection)
	before := s.listingsMade.Load()
	const n = 8
	got := make([][]DocInfo, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { got[i] = mustList(t, s, DefaultCollection) })
	}
	wg.Wait()
	for i := range n {
		sameListing(t, got[i], want)
	}
	if made := s.listingsMade.Load() - before; made != 1 {
		t.Errorf("%d listings asked at once made it %d times", n, made)
	}
}
