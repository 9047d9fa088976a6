package detect

import (
	"math"
	"sort"
)

// scored is one cell of a cross-validated prediction: the raw score x of its
// best passage, the calibrated probability p, whether that passage covers
// a labelled span (hit) and whether the provision is there at all.
type scored struct {
	x, p         float64
	hit, present bool
}

func countPresent(cells []cellData) int {
	n := 0
	for _, c := range cells {
		if c.present {
			n++
		}
	}
	return n
}

// f1At returns the F1 of finding the cells with p ≥ t: a found cell is
// right when its passage covers the provision; every present cell not
// found right is missed.
func f1At(cells []scored, t float64) float64 {
	var tp, fp, present int
	for _, c := range cells {
		if c.present {
			present++
		}
		if c.p >= t {
			if c.hit {
				tp++
			} else {
				fp++
			}
		}
	}
	if tp == 0 {
		return 0
	}
	prec := float64(tp) / float64(tp+fp)
	rec := float64(tp) / float64(present)
	return 2 * prec * rec / (prec + rec)
}

// bestThreshold returns the threshold that maximises F1 over cells (the
// midpoint between the two probabilities it falls between).
func bestThreshold(cells []scored) float64 {
	ps := make([]float64, 0, len(cells))
	for _, c := range cells {
		ps = append(ps, c.p)
	}
	sort.Float64s(ps)
	best, bestT := -1.0, 0.5
	for i, p := range ps {
		if i > 0 && p == ps[i-1] {
			continue
		}
		if f := f1At(cells, p); f > best {
			best = f
			bestT = p
			if i > 0 {
				bestT = (p + ps[i-1]) / 2
			}
		}
	}
	return bestT
}

func bestF1(cells []scored) float64 {
	if len(cells) == 0 {
		return 0
	}
	return f1At(cells, bestThreshold(cells))
}

// fitPlatt fits σ(a·x + b) to the cells' hits by Newton's method on the
// log-loss, with Platt's smoothed targets ((N₊+1)/(N₊+2) and 1/(N₋+2)) so
// separable data does not send the parameters to infinity, and a damped
// step.
func fitPlatt(cells []scored) (float64, float64) {
	var npos, nneg float64
	for _, c := range cells {
		if c.hit {
			npos++
		} else {
			nneg++
		}
	}
	hiT, loT := (npos+1)/(npos+2), 1/(nneg+2)
	a, b := 1.0, 0.0
	for range 100 {
		var ga, gb, haa, hab, hbb float64
		for _, c := range cells {
			y := loT
			if c.hit {
				y = hiT
			}
			p := sigmoid(a*c.x + b)
			d := p - y
			ga += d * c.x
			gb += d
			w := max(p*(1-p), 1e-9)
			haa += w * c.x * c.x
			hab += w * c.x
			hbb += w
		}
		haa += 1e-6
		hbb += 1e-6
		det := haa*hbb - hab*hab
		if det <= 1e-12 {
			break
		}
		da := (hbb*ga - hab*gb) / det
		db := (haa*gb - hab*ga) / det
		if n := math.Abs(da) + math.Abs(db); n > 5 {
			da, db = da*5/n, db*5/n
		}
		a -= da
		b -= db
		if math.Abs(da)+math.Abs(db) < 1e-9 {
			break
		}
	}
	return a, b
}

// corpusIDF returns the inverse document frequency of every word over the
// training passages (a passage is a "document" here); words in one passage
// only are left to the default.
func corpusIDF(docs []TrainingDoc) (map[string]float64, float64) {
	df := map[string]int{}
	n := 0
	seen := map[string]bool{}
	for _, d := range docs {
		for k := range d.Prep.passages {
			ps := &d.Prep.wordPassages()[k]
			clear(seen)
			for _, w := range ps.Words {
				seen[w] = true
			}
			for _, w := range ps.Context {
				seen[w] = true
			}
			for w := range seen {
				df[w]++
			}
			n++
		}
	}
	idf := make(map[string]float64, len(df))
	for w, c := range df {
		if c >= 2 {
			idf[w] = round4(math.Log(float64(n+1) / (float64(c) + 0.5)))
		}
	}
	return idf, round4(math.Log(float64(n+1) / 1.5))
}

func argmax(s []float64) int {
	best := -1
	for i, v := range s {
		if best < 0 || v > s[best] {
			best = i
		}
	}
	return best
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }
