package bombtest

import (
	"archive/zip"
	"bytes"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/cfb"
)

// countWriter counts the bytes written.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// Every case has a unique name, a file name with an extension and a
// sentence; the small ones are written here and checked to be what they
// claim (the large ones are written by the slow suite, which ingests them).
func TestCases(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Cases() {
		if seen[c.Name] || !strings.Contains(c.File, ".") || c.About == "" || c.Write == nil {
			t.Errorf("case %q: duplicate name, or no file extension, description or writer", c.Name)
		}
		seen[c.Name] = true
		switch c.Want {
		case Ingest, Refuse, Either:
		default:
			t.Errorf("case %q: outcome %q", c.Name, c.Want)
		}
	}
}

// The compound-file cases really share storages, stream sectors and
// ancestors: the reader finds each entry once, under its first storage.
func TestMessageGraphs(t *testing.T) {
	for _, name := range []string{"msg-dag", "msg-cycle", "msg-shared-stream"} {
		c, _ := Find(name)
		data, err := c.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		f, err := cfb.Open(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		atts := 0
		for _, e := range f.Root().Entries() {
			if strings.HasPrefix(e.Name, "__attach_version1.0_") {
				atts++
			}
		}
		switch name {
		case "msg-dag", "msg-cycle":
			if atts != 4 {
				t.Errorf("%s: %d attachment storages at the top, want 4", name, atts)
			}
		case "msg-shared-stream":
			if atts != 1000 {
				t.Errorf("%s: %d attachment storages, want 1000", name, atts)
			}
		}
	}
}

// The zip packages open, the images decode their headers, and the sizes
// are what the descriptions say, for the cases quick to write.
func TestSmallCasesWellFormed(t *testing.T) {
	if os.Getenv("PAKTON_SLOW") != "1" {
		t.Skip("writes tens of megabytes: PAKTON_SLOW=1")
	}
	for _, c := range Cases() {
		t.Run(c.Name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := c.Write(&buf); err != nil {
				t.Fatal(err)
			}
			data := buf.Bytes()
			switch {
			case strings.HasSuffix(c.File, ".odt"), strings.HasSuffix(c.File, ".docx"):
				zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range zr.File {
					rc, err := f.Open()
					if err != nil {
						t.Fatal(err)
					}
					var n countWriter
					if _, err := io.Copy(&n, rc); err != nil {
						t.Fatalf("%s: %v", f.Name, err)
					}
					if n.n > 64<<20 {
						t.Errorf("%s expands to %d bytes, past the 64 MiB part limit the case means to stay under", f.Name, n.n)
					}
				}
			case strings.HasSuffix(c.File, ".png"), strings.HasSuffix(c.File, ".jpg"):
				cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
				if err != nil || cfg.Width*cfg.Height < 30_000_000 {
					t.Errorf("%v %dx%d", err, cfg.Width, cfg.Height)
				}
			case strings.HasSuffix(c.File, ".doc"):
				if _, err := cfb.Open(data); err != nil {
					t.Error(err)
				}
			}
			t.Logf("%s: %d bytes", c.File, len(data))
		})
	}
}
