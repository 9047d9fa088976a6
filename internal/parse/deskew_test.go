package parse

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// skewAngle finds the turn of a page fed askew either way, leaves a straight
// page and a blank one alone, and turn undoes the skew it found.
func TestSkewAngle(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "scan", "two-pages.tif"))
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	page := toGray(img)
	if a := skewAngle(page); math.Abs(a) >= minSkew {
		t.Errorf("a straight page: angle %.2f°", a)
	}
	blank := image.NewGray(image.Rect(0, 0, 1700, 2200))
	for i := range blank.Pix {
		blank.Pix[i] = 255
	}
	if a := skewAngle(blank); a != 0 {
		t.Errorf("a blank page: angle %.2f°", a)
	}
	for _, skew := range []float64{-3, -1.5, -0.8, 0.6, 1, 1.5, 2.5} {
		askew := turn(page, skew)
		a := skewAngle(askew)
		if math.Abs(a+skew) > 0.15 {
			t.Errorf("page turned %.1f°: found %.2f°, want %.1f°", skew, a, -skew)
			continue
		}
		if again := skewAngle(turn(askew, a)); math.Abs(again) >= minSkew {
			t.Errorf("page turned %.1f° and back by %.2f°: still %.2f° askew", skew, a, again)
		}
	}
}

// deskewFile hands a straight page to tesseract untouched and writes a
// turned one straight beside it; bytes that are no image are left to
// tesseract.
func TestDeskewFile(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "scan", "two-pages.tif"))
	if err != nil {
		t.Fatal(err)
	}
	straight := filepath.Join(dir, "page-1.tif")
	os.WriteFile(straight, data, 0o600)
	if p, a, err := deskewFile(straight); err != nil || p != straight || a != 0 {
		t.Errorf("straight page: %q %.2f %v", p, a, err)
	}
	junk := filepath.Join(dir, "page-2.png")
	os.WriteFile(junk, []byte("\x89PNG\r\n\x1a\nnot really"), 0o600)
	if p, a, err := deskewFile(junk); err != nil || p != junk || a != 0 {
		t.Errorf("junk: %q %.2f %v", p, a, err)
	}
	img, _, _ := image.Decode(bytes.NewReader(data))
	askew := filepath.Join(dir, "page-3.png")
	var buf bytes.Buffer
	if err := png.Encode(&buf, turn(toGray(img), 2)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(askew, buf.Bytes(), 0o600)
	p, a, err := deskewFile(askew)
	if err != nil || p == askew || math.Abs(a+2) > 0.15 {
		t.Fatalf("askew page: %q %.2f %v", p, a, err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Errorf("the straightened page: %v", err)
	}
}

// Whatever the bytes, deskewFile returns a page for tesseract and never
// panics.
func FuzzDeskew(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "scan", "two-pages.tif"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte("\x89PNG\r\n\x1a\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "page.png")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		got, _, err := deskewFile(p)
		if err != nil || got == "" {
			t.Fatalf("%q %v", got, err)
		}
		if got != p {
			os.Remove(got)
		}
	})
}

// BenchmarkDeskew is the cost deskewing adds to a letter page scanned at
// 200 dpi and fed 1.5° askew (decode, find the angle, turn, encode):
//
//	go test ./internal/parse -run X -bench Deskew
func BenchmarkDeskew(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "scan", "two-pages.tif"))
	if err != nil {
		b.Fatal(err)
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	src := toGray(img)
	page := image.NewGray(image.Rect(0, 0, 1700, 2200))
	sw, sh := src.Bounds().Dx(), src.Bounds().Dy()
	for y := 0; y < 2200; y++ {
		for x := 0; x < 1700; x++ {
			page.Pix[y*page.Stride+x] = src.Pix[(y%sh)*src.Stride+x%sw]
		}
	}
	var buf bytes.Buffer
	png.Encode(&buf, turn(page, 1.5))
	p := filepath.Join(b.TempDir(), "page.png")
	os.WriteFile(p, buf.Bytes(), 0o600)
	b.ResetTimer()
	for b.Loop() {
		out, a, err := deskewFile(p)
		if err != nil || a == 0 {
			b.Fatalf("%v %.2f", err, a)
		}
		os.Remove(out)
	}
}
