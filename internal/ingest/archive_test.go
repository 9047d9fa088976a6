package ingest

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/parse/pdftest"
	"github.com/pakton/pakton/internal/store"
)

// emlWith builds an e-mail whose attachments are name → bytes, in order.
func emlWith(subject, body string, atts ...[2]string) []byte {
	var b strings.Builder
	b.WriteString("From: Anna <anna@acme.example>\r\nTo: counsel@firm.example\r\nSubject: " + subject + "\r\nDate: Tue, 3 Mar 2020 10:00:00 +0100\r\nMIME-Version: 1.0\r\n")
	b.WriteString("Content-Type: multipart/mixed; boundary=\"B\"\r\n\r\n--B\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" + body + "\r\n")
	for _, a := range atts {
		b.WriteString("--B\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=\"" + a[0] + "\"\r\nContent-Transfer-Encoding: base64\r\n\r\n")
		b.WriteString(base64.StdEncoding.EncodeToString([]byte(a[1])) + "\r\n")
	}
	b.WriteString("--B--\r\n")
	return []byte(b.String())
}

// orderedZip builds a zip with entries in the order given.
func orderedZip(t testing.TB, entries ...[2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.Create(e[0])
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(e[1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// dataRoom is a ZIP export as a firm receives it: numbered folders, Word
// old and new, RTF, ODT, an e-mail with the contract attached, a nested
// archive, an unsupported file, a damaged PDF and entries that must be
// refused.
func dataRoom(t testing.TB) []byte {
	t.Helper()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "parse", "testdata", "wordproc", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	pdf := string(pdftest.OnePage("LICENCE AGREEMENT", "1. Grant", "The Licensor grants a licence.", "2. Term", "Five years."))
	nested := orderedZip(t, [2]string{"Old Draft.rtf", read("legal.rtf")})
	eml := emlWith("Re: signed licence", "Please find the signed licence attached.",
		[2]string{"Licence Agreement.pdf", pdf}, [2]string{"prices.csv", "a,b\n"}, [2]string{"Licence Agreement.pdf", contractText(31, 2)})
	return orderedZip(t,
		[2]string{"01 Corporate/", ""},
		[2]string{"01 Corporate/1.1 Services Agreement.doc", read("legal.doc")},
		[2]string{"01 Corporate/1.2 Services Agreement.odt", read("legal.odt")},
		[2]string{"01 Corporate/1.3 Services Agreement.docx", read("legal.docx")},
		[2]string{"02 Commercial/2.3 Distribution/Re signed licence.eml", string(eml)},
		[2]string{"02 Commercial/2.3 Distribution/Prices.xlsx", "PK\x03\x04junk"},
		[2]string{"02 Commercial/Archive.zip", string(nested)},
		[2]string{"02 Commercial/damaged.pdf", "%PDF-1.4 this is not a PDF"},
		[2]string{"03 Other/notes.txt", contractText(32, 2)},
		[2]string{"../../etc/passwd.txt", "x"},
		[2]string{"/abs/evil.txt", "x"},
	)
}

func TestIngestDataRoom(t *testing.T) {
	dir := t.TempDir()
	room := writeFile(t, dir, "room.zip", dataRoom(t))
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu        sync.Mutex
		lastDone  int
		lastTotal int
	)
	opt := Options{Progress: func(p Progress) {
		mu.Lock()
		defer mu.Unlock()
		if p.Done != 0 && p.Done != lastDone+1 {
			t.Errorf("progress jumped from %d to %d", lastDone, p.Done)
		}
		if p.Done > p.Total {
			t.Errorf("progress %d of %d", p.Done, p.Total)
		}
		lastDone, lastTotal = p.Done, p.Total
	}}
	sum, err := Ingest(context.Background(), st, "room", []string{room}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if lastDone != lastTotal || lastDone != len(sum.Files) {
		t.Errorf("progress ended at %d of %d for %d results", lastDone, lastTotal, len(sum.Files))
	}
	got := map[string]FileResult{}
	for _, f := range sum.Files {
		got[f.Name] = f
	}
	msg := "02 Commercial/2.3 Distribution/Re signed licence.eml"
	for name, want := range map[string]string{
		"01 Corporate/1.1 Services Agreement.doc":  "added",
		"01 Corporate/1.2 Services Agreement.odt":  "added",
		"01 Corporate/1.3 Services Agreement.docx": "added",
		msg:                                "added",
		msg + "/Licence Agreement.pdf":     "added",
		msg + "/Licence Agreement (2).pdf": "failed: file is corrupt",
		msg + "/prices.csv":                "skipped: unsupported file type (.csv",
		"02 Commercial/2.3 Distribution/Prices.xlsx": "skipped: unsupported file type (.xlsx",
		"02 Commercial/Archive.zip/Old Draft.rtf":    "added",
		"02 Commercial/damaged.pdf":                  "failed: file is corrupt",
		"03 Other/notes.txt":                         "added",
		"../../etc/passwd.txt":                       "failed: refused: the path climbs out",
		"/abs/evil.txt":                              "failed: refused: absolute path",
	} {
		r, ok := got[name]
		if !ok {
			t.Errorf("no result for %q", name)
			continue
		}
		status, frag, _ := strings.Cut(want, ": ")
		if string(r.Status) != status || !strings.Contains(r.Reason, frag) {
			t.Errorf("%s: %s %q, want %s %q", name, r.Status, r.Reason, status, frag)
		}
	}
	if len(got) != 13 {
		t.Errorf("%d results, want 13: %v", len(got), got)
	}

	// Folders, provenance and the link between a message and its attachments.
	infos, err := st.List(t.Context(), "room")
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]store.DocInfo{}
	for _, in := range infos {
		byName[in.Name] = in
	}
	if in := byName["01 Corporate/1.1 Services Agreement.doc"]; in.Source.Folder != "01 Corporate" || in.Source.Archive != "room.zip" || in.Source.Entry != "01 Corporate/1.1 Services Agreement.doc" {
		t.Errorf("provenance %+v", in.Source)
	}
	if in := byName[msg+"/Licence Agreement.pdf"]; in.Source.Parent != msg || in.Source.Folder != "02 Commercial/2.3 Distribution" {
		t.Errorf("attachment provenance %+v", in.Source)
	}
	if in := byName["02 Commercial/Archive.zip/Old Draft.rtf"]; in.Source.Entry != "02 Commercial/Archive.zip/Old Draft.rtf" || in.Source.Folder != "02 Commercial/Archive.zip" {
		t.Errorf("nested provenance %+v", in.Source)
	}
	// What Describe and Folders read from this provenance: usecase.TestDescribeDataRoom.
	st.Close()
	verifyStore(t.Context(), t, filepath.Join(dir, "store"), "room")

	// Again: every entry is unchanged (or fails and is skipped as before).
	st, err = store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	again, err := Ingest(context.Background(), st, "room", []string{room}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := again.Count(StatusAdded) + again.Count(StatusReplaced); n != 0 {
		t.Errorf("re-ingest stored %d documents again: %s", n, again.String())
	}
}

// A zip inside a directory is named under its path; one given directly
// names its entries by their paths inside it.
func TestArchiveNaming(t *testing.T) {
	dir := t.TempDir()
	z := orderedZip(t, [2]string{"a/contract.txt", contractText(40, 2)})
	writeFile(t, dir, "rooms/x.zip", z)
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sum, err := Ingest(context.Background(), st, "c", []string{filepath.Join(dir, "rooms")}, Options{})
	if err != nil || len(sum.Files) != 1 || sum.Files[0].Name != "x.zip/a/contract.txt" {
		t.Fatalf("in a directory: %v %+v", err, sum.Files)
	}
	sum, err = Ingest(context.Background(), st, "d", []string{filepath.Join(dir, "rooms", "x.zip")}, Options{})
	if err != nil || len(sum.Files) != 1 || sum.Files[0].Name != "a/contract.txt" {
		t.Fatalf("given directly: %v %+v", err, sum.Files)
	}
	bad := writeFile(t, dir, "bad.zip", []byte("PK\x03\x04 not really"))
	sum, err = Ingest(context.Background(), st, "d", []string{bad}, Options{})
	if err != nil || len(sum.Files) != 1 || sum.Files[0].Status != StatusFailed || !strings.Contains(sum.Files[0].Reason, "ZIP") {
		t.Fatalf("damaged archive: %v %+v", err, sum.Files)
	}
}

// A cancelled ingest of an archive stores only whole documents, and never
// an e-mail without the attachments it could read: a message and its
// attachments are stored in one commit.
func TestArchiveCancelled(t *testing.T) {
	var entries [][2]string
	for i := 0; i < 12; i++ {
		entries = append(entries, [2]string{"mail/msg" + strconv.Itoa(i) + ".eml", string(emlWith("Contract "+strconv.Itoa(i), "See attached.",
			[2]string{"a.txt", contractText(100+i, 3)}, [2]string{"b.txt", contractText(200+i, 3)}))})
		entries = append(entries, [2]string{"docs/c" + strconv.Itoa(i) + ".txt", contractText(300+i, 4)})
	}
	for round := 0; round < 6; round++ {
		dir := t.TempDir()
		room := writeFile(t, dir, "room.zip", orderedZip(t, entries...))
		st, err := store.Open(filepath.Join(dir, "store"))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		stopAt := 1 + round*3
		_, err = Ingest(ctx, st, "c", []string{room}, Options{Workers: 2, Progress: func(p Progress) {
			if p.Done >= stopAt {
				cancel()
			}
		}})
		cancel()
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		infos, _ := st.List(t.Context(), "c")
		have := map[string]bool{}
		for _, in := range infos {
			have[in.Name] = true
		}
		for name := range have {
			if strings.HasSuffix(name, ".eml") && (!have[name+"/a.txt"] || !have[name+"/b.txt"]) {
				t.Errorf("round %d: %s stored without its attachments", round, name)
			}
			if strings.Contains(name, ".eml/") && !have[name[:strings.Index(name, ".eml/")+4]] {
				t.Errorf("round %d: attachment %s stored without its message", round, name)
			}
		}
		st.Close()
		verifyStore(t.Context(), t, filepath.Join(dir, "store"), "c")
	}
}

// TestArchiveKilled SIGKILLs a process ingesting a data room at random
// moments (the child of TestIngestKilled, given the archive): after each
// kill the store reads back whole, and no e-mail is stored without the
// attachments it holds, nor an attachment without its e-mail.
func TestArchiveKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary:", err)
	}
	dir := t.TempDir()
	var entries [][2]string
	for i := 0; i < 16; i++ {
		entries = append(entries, [2]string{fmt.Sprintf("mail/msg%02d.eml", i), string(emlWith(fmt.Sprintf("Contract %d", i), "See attached.",
			[2]string{"a.txt", contractText(500+i, 8)}, [2]string{"b.txt", contractText(600+i, 8)}, [2]string{"c.txt", contractText(700+i, 8)}))})
		entries = append(entries, [2]string{fmt.Sprintf("docs/c%02d.txt", i), contractText(800+i, 10)})
	}
	room := writeFile(t, dir, "room.zip", orderedZip(t, entries...))
	storeDir := filepath.Join(dir, "store")
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0))
	deadline := time.Now().Add(6 * time.Second)
	for round := 1; round <= 3 && time.Now().Before(deadline); round++ {
		os.RemoveAll(storeDir) // each round starts afresh, so kills land in first-time stores of messages
		target := 1 + rng.IntN(40)
		killChild(t, exe, storeDir, room, target, time.Duration(rng.IntN(5000))*time.Microsecond)
		if _, err := os.Stat(storeDir); err != nil {
			continue // killed before the store was made
		}
		verifyStore(t.Context(), t, storeDir, "kill")
		st, err := store.Open(storeDir)
		if err != nil {
			t.Fatal(err)
		}
		infos, _ := st.List(t.Context(), "kill")
		have := map[string]bool{}
		for _, in := range infos {
			have[in.Name] = true
		}
		for name := range have {
			if strings.HasSuffix(name, ".eml") && (!have[name+"/a.txt"] || !have[name+"/b.txt"] || !have[name+"/c.txt"]) {
				t.Errorf("round %d: %s stored without all its attachments", round, name)
			}
			if i := strings.Index(name, ".eml/"); i >= 0 && !have[name[:i+4]] {
				t.Errorf("round %d: %s stored without its message", round, name)
			}
		}
		st.Close()
		t.Logf("round %d: killed after %d entries; %d documents, consistent", round, target, len(infos))
	}
}
