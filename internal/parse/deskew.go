package parse

// Deskewing a scanned page before OCR.
//
// A sheet fed askew reaches tesseract with its lines at an angle; past
// about one degree tesseract loses words (docs/INGEST.md: a 1.5° turn took
// word F1 under 0.90). skewAngle finds the angle by projection profiles:
// the page's dark pixels, projected on the vertical axis of the page turned
// by a candidate angle, pile up in sharp peaks (the text lines) only when
// the angle undoes the skew, so the angle whose profile has the largest sum
// of squares wins. The search is over ±maxSkew in steps of skewStep on a
// reduced copy of the page (the lines stay several pixels high), then the
// full page is turned once, nearest neighbour so a bilevel scan stays
// bilevel. A page whose best angle is under minSkew, or that has too few
// dark pixels to tell, is handed to tesseract untouched, byte for byte.

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // decoders for image.Decode
	"image/png"
	"math"
	"os"
	"strings"

	_ "golang.org/x/image/tiff" // scanners' TIFFs: bilevel CCITT G3/G4, PackBits, LZW
)

const (
	maxSkew  = 5.0  // degrees searched either way
	skewStep = 0.1  // degrees
	minSkew  = 0.25 // degrees: smaller turns are left alone
	// deskewMaxPixels bounds the pages turned (a letter page at 600 dpi is
	// 34 megapixels); larger ones are read as they are. deskewMaxBytes
	// bounds the decoded page the same way (a 600-dpi grey letter page is
	// 34 MB decoded, a 300-dpi colour one 34 MB; 16-bit colour takes eight
	// bytes a pixel), since pages are decoded several at a time.
	deskewMaxPixels = 40_000_000
	deskewMaxBytes  = 128 << 20
	// skewSampleWidth is the width of the reduced copy the angle is found on.
	skewSampleWidth = 900
)

// deskewFile turns the page image at path straight when it is askew, writing
// the turned page beside it as PNG, and returns the path tesseract should
// read and the angle turned (0 when the page was left alone). An image it
// cannot decode is left to tesseract, which reports on it.
func deskewFile(path string) (straight string, angle float64, err error) {
	defer func() {
		// A decoder's panic on hostile bytes must not take the process
		// down: the page goes to tesseract as it is.
		if recover() != nil {
			straight, angle, err = path, 0, nil
		}
	}()
	data, err := os.ReadFile(path)
	if err != nil {
		return "", 0, err
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if px := int64(cfg.Width) * int64(cfg.Height); err != nil || px > deskewMaxPixels || px*bytesPerPixel(cfg.ColorModel) > deskewMaxBytes {
		return path, 0, nil
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return path, 0, nil
	}
	g := toGray(img)
	a := skewAngle(g)
	if math.Abs(a) < minSkew {
		return path, 0, nil
	}
	out := strings.TrimSuffix(path, ".png") + "-straight.png"
	f, err := os.Create(out)
	if err != nil {
		return "", 0, fmt.Errorf("writing the straightened page: %w", err)
	}
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(f, turn(g, a)); err != nil {
		f.Close()
		os.Remove(out)
		return "", 0, fmt.Errorf("writing the straightened page: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(out)
		return "", 0, fmt.Errorf("writing the straightened page: %w", err)
	}
	return out, a, nil
}

// toGray returns img as 8-bit gray, without copying a gray image.
func toGray(img image.Image) *image.Gray {
	if g, ok := img.(*image.Gray); ok {
		return g
	}
	b := img.Bounds()
	g := image.NewGray(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, gr, bl, _ := img.At(x, y).RGBA()
			g.Pix[(y-b.Min.Y)*g.Stride+(x-b.Min.X)] = uint8((19595*r + 38470*gr + 7471*bl + 1<<15) >> 24)
		}
	}
	return g
}

// skewAngle returns the angle (degrees) that turn needs to make the text
// lines of g level, or 0 when the page does not say.
func skewAngle(g *image.Gray) float64 {
	b := g.Bounds()
	w, h := b.Dx(), b.Dy()
	step := max(1, w/skewSampleWidth)
	cx, cy := float64(w)/2, float64(h)/2
	// The dark pixels of the reduced page, relative to its centre: a pixel
	// of the reduced page is dark when any pixel of its block is, so thin
	// strokes survive the reduction.
	var xs, ys []float32
	cells := 0
	for y := 0; y+step <= h; y += step {
		for x := 0; x+step <= w; x += step {
			cells++
			dark := false
			for yy := y; yy < y+step && !dark; yy++ {
				row := g.Pix[yy*g.Stride+x : yy*g.Stride+x+step]
				for _, v := range row {
					if v < 128 {
						dark = true
						break
					}
				}
			}
			if dark {
				xs = append(xs, float32(float64(x)-cx))
				ys = append(ys, float32(float64(y)-cy))
			}
		}
	}
	// Too little ink to tell, or a page that is mostly dark (a photograph,
	// an inverted scan): leave it.
	if len(xs) < 200 || len(xs) > cells/2 {
		return 0
	}
	span := int(math.Hypot(float64(w), float64(h))/float64(step)) + 2
	bins := make([]int32, span)
	profile := func(a float64) float64 {
		clear(bins)
		sin, cos := math.Sincos(a * math.Pi / 180)
		s, c := float32(sin/float64(step)), float32(cos/float64(step))
		off := float32(span / 2)
		for i := range xs {
			// The row the pixel lands on once the page is turned by a.
			r := int(xs[i]*s + ys[i]*c + off)
			if r >= 0 && r < span {
				bins[r]++
			}
		}
		var sum float64
		for _, n := range bins {
			sum += float64(n) * float64(n)
		}
		return sum
	}
	best, bestScore := 0.0, profile(0)
	level := bestScore
	n := int(math.Round(maxSkew / skewStep))
	for i := -n; i <= n; i++ {
		if i == 0 {
			continue
		}
		a := float64(i) * skewStep
		if s := profile(a); s > bestScore {
			best, bestScore = a, s
		}
	}
	// A turn must make the lines clearly sharper than they are, or the page
	// (a form, a drawing, a page of scattered words) does not say its angle.
	if bestScore < level*1.05 {
		return 0
	}
	return best
}

// turn returns g turned by angle degrees about its centre (nearest
// neighbour, white where the turned page has no source pixel): the pixel
// at (x, y) of the result is the one skewAngle's projection maps there.
func turn(g *image.Gray, angle float64) *image.Gray {
	b := g.Bounds()
	w, h := b.Dx(), b.Dy()
	out := image.NewGray(image.Rect(0, 0, w, h))
	sin, cos := math.Sincos(angle * math.Pi / 180)
	cx, cy := float64(w)/2, float64(h)/2
	for y := 0; y < h; y++ {
		dy := float64(y) - cy
		row := out.Pix[y*out.Stride : y*out.Stride+w]
		for x := range row {
			dx := float64(x) - cx
			// Inverse of the projection in skewAngle: source = R(angle)ᵀ·dest.
			sx := int(math.Floor(cx + dx*cos + dy*sin + 0.5))
			sy := int(math.Floor(cy - dx*sin + dy*cos + 0.5))
			if sx >= 0 && sx < w && sy >= 0 && sy < h {
				row[x] = g.Pix[sy*g.Stride+sx]
			} else {
				row[x] = 255
			}
		}
	}
	return out
}

// bytesPerPixel is what the standard decoders hold per pixel of an image
// of model m.
func bytesPerPixel(m color.Model) int64 {
	switch m {
	case color.RGBA64Model, color.NRGBA64Model:
		return 8
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.Gray16Model, color.Alpha16Model:
		return 2
	case color.YCbCrModel:
		return 3
	}
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	return 4
}
