package unpack

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strings"
	"testing"
)

// zipEntry describes one entry of a test archive.
type zipEntry struct {
	name    string
	data    []byte
	flags   uint16
	method  uint16
	mode    uint32 // Unix mode in the high half of the external attributes
	nonUTF8 bool
	extra   []byte
}

func buildZip(t testing.TB, entries ...zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: e.method, NonUTF8: e.nonUTF8, Extra: e.extra}
		if h.Method == 0 && e.data != nil {
			h.Method = zip.Deflate
		}
		if e.mode != 0 {
			h.CreatorVersion = 3 << 8 // Unix
			h.ExternalAttrs = e.mode << 16
		}
		if h.Method != zip.Store && h.Method != zip.Deflate {
			// A method the writer cannot compress with: written raw.
			h.CRC32, h.CompressedSize64, h.UncompressedSize64 = crc32.ChecksumIEEE(e.data), uint64(len(e.data)), uint64(len(e.data))
			w, err := zw.CreateRaw(h)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(e.data)
			continue
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(e.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	// Flags the writer does not let us set (encryption) are patched in.
	for i, e := range entries {
		if e.flags != 0 {
			patchFlags(b, i, e.flags)
		}
	}
	return b
}

// patchFlags ORs flags into the i-th entry's local and central headers.
func patchFlags(b []byte, i int, flags uint16) {
	for _, sig := range []struct {
		magic string
		off   int
	}{{"PK\x03\x04", 6}, {"PK\x01\x02", 8}} {
		n := 0
		for p := 0; p+4 <= len(b); p++ {
			if string(b[p:p+4]) == sig.magic {
				if n == i {
					v := binary.LittleEndian.Uint16(b[p+sig.off:])
					binary.LittleEndian.PutUint16(b[p+sig.off:], v|flags)
					break
				}
				n++
			}
		}
	}
}

func open(t testing.TB, b []byte, lim Limits) *Archive {
	t.Helper()
	a, err := OpenZip(bytes.NewReader(b), int64(len(b)), lim)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestZipEntries(t *testing.T) {
	nfd := "Vertrag Mu\u0308ller.pdf" // decomposed, as macOS writes it
	b := buildZip(t,
		zipEntry{name: "01 Corporate/", data: nil},
		zipEntry{name: "01 Corporate/1.1 Supply.rtf", data: []byte(`{\rtf1 x}`)},
		zipEntry{name: `02 Commercial\2.3 Dist\Licence.pdf`, data: []byte("%PDF-1.4")},
		zipEntry{name: "../../etc/passwd", data: []byte("x")},
		zipEntry{name: "/abs/file.txt", data: []byte("x")},
		zipEntry{name: "C:/Windows/file.txt", data: []byte("x")},
		zipEntry{name: "01 Corporate/link.txt", data: []byte("target"), mode: 0o120777},
		zipEntry{name: "01 Corporate/secret.pdf", data: []byte("x"), flags: 1},
		zipEntry{name: "01 Corporate/bzip.pdf", data: []byte("x"), method: 12},
		zipEntry{name: "01 Corporate/evil\u202efdp.exe", data: []byte("x")},
		zipEntry{name: "01 Corporate/zero\u200bwidth.pdf", data: []byte("x")},
		zipEntry{name: nfd, data: []byte("a")},
		zipEntry{name: "Vertrag Müller.pdf", data: []byte("b")},
		zipEntry{name: "__MACOSX/01 Corporate/._x", data: []byte("x")},
		zipEntry{name: "01 Corporate/.DS_Store", data: []byte("x")},
		zipEntry{name: "\x8e\x84\x81.txt", data: []byte("x"), nonUTF8: true}, // "Ääü" in code page 437
		zipEntry{name: "bad\xff.txt", data: []byte("x"), flags: 0x800},
	)
	a := open(t, b, Limits{})
	got := map[string]string{}
	for _, e := range a.Entries {
		if _, seen := got[e.Name]; !seen {
			got[e.Name] = e.Refused
		}
	}
	want := map[string]string{
		"01 Corporate/1.1 Supply.rtf":        "",
		"02 Commercial/2.3 Dist/Licence.pdf": "",
		"../../etc/passwd":                   "climbs out",
		"/abs/file.txt":                      "absolute path",
		"C:/Windows/file.txt":                "drive letter",
		"01 Corporate/link.txt":              "symbolic link",
		"01 Corporate/secret.pdf":            "encrypted",
		"01 Corporate/bzip.pdf":              "bzip2",
		"01 Corporate/evil\ufffdfdp.exe":     "bidirectional",
		"01 Corporate/zero\ufffdwidth.pdf":   "invisible",
		"Vertrag Müller.pdf":                 "",
		"Ääü.txt":                            "",
		"bad\ufffd.txt":                      "not valid UTF-8",
	}
	for name, frag := range want {
		r, ok := got[name]
		switch {
		case !ok:
			t.Errorf("entry %q missing; entries: %q", name, got)
		case frag == "" && r != "":
			t.Errorf("entry %q refused: %s", name, r)
		case frag != "" && !strings.Contains(r, frag):
			t.Errorf("entry %q: refusal %q, want it to mention %q", name, r, frag)
		}
	}
	// The NFD and NFC spellings are one name: the second is refused.
	dups := 0
	for _, e := range a.Entries {
		if e.Name == "Vertrag Müller.pdf" && strings.Contains(e.Refused, "another entry") {
			dups++
		}
	}
	if dups != 1 {
		t.Errorf("NFD/NFC duplicate refused %d times, want once", dups)
	}
	for _, e := range a.Entries {
		if strings.Contains(e.Name, "MACOSX") || strings.Contains(e.Name, ".DS_Store") {
			t.Errorf("clutter listed: %q", e.Name)
		}
	}
	// A good entry reads; a refused one does not.
	for _, e := range a.Entries {
		data, err := a.Read(e)
		if e.Refused == "" && (err != nil || len(data) == 0) {
			t.Errorf("read %q: %v", e.Name, err)
		}
		if e.Refused != "" && !errors.Is(err, ErrRefused) {
			t.Errorf("read refused %q: %v", e.Name, err)
		}
	}
}

func TestZipBombs(t *testing.T) {
	big := bytes.Repeat([]byte{0}, 20<<20) // 20 MiB of zeros deflate to ~20 KiB
	t.Run("ratio", func(t *testing.T) {
		a := open(t, buildZip(t, zipEntry{name: "zeros.txt", data: big}, zipEntry{name: "ok.txt", data: []byte("fine")}), Limits{})
		if !strings.Contains(a.Entries[0].Refused, "zip bomb") || a.Entries[1].Refused != "" {
			t.Errorf("refusals %q / %q", a.Entries[0].Refused, a.Entries[1].Refused)
		}
	})
	t.Run("declared size too large", func(t *testing.T) {
		a := open(t, buildZip(t, zipEntry{name: "big.txt", data: bytes.Repeat([]byte("abcdefgh"), 1<<18)}), Limits{Entry: 1 << 20})
		if !strings.Contains(a.Entries[0].Refused, "limit") {
			t.Errorf("refusal %q", a.Entries[0].Refused)
		}
	})
	t.Run("lying size", func(t *testing.T) {
		// The header says 100 bytes; the data expands to 2 MiB.
		var comp bytes.Buffer
		fw, _ := flate.NewWriter(&comp, flate.BestCompression)
		payload := bytes.Repeat([]byte("lie "), 1<<19)
		fw.Write(payload)
		fw.Close()
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, err := zw.CreateRaw(&zip.FileHeader{Name: "liar.txt", Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(payload),
			CompressedSize64: uint64(comp.Len()), UncompressedSize64: 100})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(comp.Bytes())
		zw.Close()
		a := open(t, buf.Bytes(), Limits{Entry: 1 << 20})
		if _, err := a.Read(a.Entries[0]); err == nil {
			t.Error("a lying entry read without error")
		}
	})
	t.Run("overlapping entries", func(t *testing.T) {
		b := buildZip(t, zipEntry{name: "a.txt", data: []byte("same data")}, zipEntry{name: "b.txt", data: []byte("same data")})
		// Point the second central-directory entry at the first local header.
		var cds []int
		for p := 0; p+4 <= len(b); p++ {
			if string(b[p:p+4]) == "PK\x01\x02" {
				cds = append(cds, p)
			}
		}
		binary.LittleEndian.PutUint32(b[cds[1]+42:], binary.LittleEndian.Uint32(b[cds[0]+42:]))
		a := open(t, b, Limits{})
		for _, e := range a.Entries {
			if !strings.Contains(e.Refused, "overlaps") {
				t.Errorf("%s: refusal %q", e.Name, e.Refused)
			}
		}
	})
	t.Run("total", func(t *testing.T) {
		a := open(t, buildZip(t, zipEntry{name: "a.txt", data: []byte(strings.Repeat("a", 600))}, zipEntry{name: "b.txt", data: []byte(strings.Repeat("b", 600))}), Limits{Total: 1000, Ratio: 1e9})
		if _, err := a.Read(a.Entries[0]); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Read(a.Entries[1]); !errors.Is(err, ErrBomb) {
			t.Errorf("past the total: %v", err)
		}
	})
	t.Run("not a zip", func(t *testing.T) {
		if _, err := OpenZip(bytes.NewReader([]byte("PK\x03\x04 no")), 11, Limits{}); !errors.Is(err, ErrArchive) {
			t.Errorf("garbage: %v", err)
		}
	})
}

func FuzzOpenZip(f *testing.F) {
	f.Add(buildZip(f, zipEntry{name: "a/b.txt", data: []byte("hello")}, zipEntry{name: "../x", data: []byte("y")}))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := OpenZip(bytes.NewReader(data), int64(len(data)), Limits{Entry: 1 << 20, Total: 4 << 20})
		if err != nil {
			return
		}
		for _, e := range a.Entries {
			if e.Refused == "" {
				if _, err := CleanName(e.Name); err != nil {
					t.Fatalf("accepted name %q: %v", e.Name, err)
				}
				if strings.Contains("/"+e.Name+"/", "/../") || strings.HasPrefix(e.Name, "/") {
					t.Fatalf("accepted unsafe name %q", e.Name)
				}
			}
			if b, err := a.Read(e); err == nil && len(b) > 1<<20 {
				t.Fatalf("entry %q expanded to %d bytes past the limit", e.Name, len(b))
			}
		}
	})
}
