package detect

import (
	"strings"
)

// fitCalibration fits the zero-shot scorer's calibration and prior on the
// labelled provisions (det.ZeroShot), and returns the feature index, the
// prior (the detectors' starting point) and every provision's cells as the
// calibrated zero-shot scorer finds them.
func fitCalibration(det *Detectors, docs []TrainingDoc, provs []provData, zsScores [][][]float64, rel [][][]uint32, hard int) (fx *featureIndex, g *detectorFit, zsPairs [][]scored, rep *TrainReport) {
	// The zero-shot calibration, fitted on the labelled provisions' best
	// passages.
	var pairs []scored
	zsPairs = make([][]scored, len(provs))
	for j, pd := range provs {
		for _, c := range pd.cells {
			s := zsScores[c.doc][pd.idx]
			best := argmax(s)
			sc := scored{x: 0, hit: false, present: c.present}
			if best >= 0 {
				sc.x, sc.hit = s[best], c.present && c.pos[best]
			}
			zsPairs[j] = append(zsPairs[j], sc)
		}
		pairs = append(pairs, zsPairs[j]...)
	}
	a, b := fitPlatt(pairs)
	if a <= 0 {
		// The labelled provisions' zero-shot scores do not rise with the
		// truth (too few labels, or definitions that mislead): a calibration
		// that ranked passages backwards would be worse than none.
		a, b = defaultCalibration.A, defaultCalibration.B
	}
	// Refit on what a cell really returns: the passages picked with these
	// probabilities must cover a labelled span.
	pairs = pairs[:0]
	for j, pd := range provs {
		for i, c := range pd.cells {
			if !c.present {
				continue
			}
			s := zsScores[c.doc][pd.idx]
			probs := make([]float64, len(s))
			for k, v := range s {
				probs[k] = sigmoid(a*v + b)
			}
			zsPairs[j][i].hit = cellCovers(docs[c.doc].Prep, probs, c)
		}
		pairs = append(pairs, zsPairs[j]...)
	}
	if a2, b2 := fitPlatt(pairs); a2 > 0 {
		a, b = a2, b2
	}
	// The zero-shot scorer's prior: a model shared by every labelled
	// provision over the zero-shot score and the passages' generic features
	// (kind of clause, place, length, shape), starting from (a, b).
	fx = newFeatureIndex(docs, rel)
	gx := fx.generic()
	cellsOf := func(exclude string) []cellData {
		var out []cellData
		for _, pd := range provs {
			if !strings.EqualFold(pd.name, exclude) {
				out = append(out, pd.cells...)
			}
		}
		return out
	}
	fitZeroShot := func(exclude string) (Calibration, *detectorFit, map[string][]scored) {
		g := fitDetector(cellsOf(exclude), gx, zsScores, &detectorFit{zsw: a, bias: b}, "zero-shot", -1, hard, false)
		if g.zsw <= 0 {
			// The prior learned to rank passages against the provision's
			// own description (too few or too alike labelled provisions):
			// keep the plain calibration.
			g = &detectorFit{w: make([]float64, len(gx.ids)), zsw: a, bias: b}
		}
		byProv := calibratedPairs(g, gx, docs, provs, zsScores)
		var all []scored
		for _, pd := range provs {
			if !strings.EqualFold(pd.name, exclude) {
				all = append(all, byProv[pd.name]...)
			}
		}
		pa, pb := fitPlatt(all)
		for i := range all {
			all[i].p = sigmoid(pa*all[i].x + pb)
		}
		cal := Calibration{A: round4(g.zsw), B: round4(g.bias), Prior: g.exportWeights(gx), Platt: [2]float64{round4(pa), round4(pb)},
			Threshold: round4(bestThreshold(all))}
		return cal, g, byProv
	}
	cal, g, byProv := fitZeroShot("")
	det.ZeroShot = cal
	for j, pd := range provs {
		zsPairs[j] = byProv[pd.name]
	}
	rep = &TrainReport{ZeroShot: det.ZeroShot, refit: func(exclude string) Calibration {
		c, _, _ := fitZeroShot(exclude)
		return c
	}}
	return fx, g, zsPairs, rep
}

// calibratedPairs returns, for every provision, its cells as the zero-shot
// scorer with prior g finds them: the best passage's raw score and whether
// the passages picked cover the provision.
func calibratedPairs(g *detectorFit, gx *featureIndex, docs []TrainingDoc, provs []provData, zsScores [][][]float64) map[string][]scored {
	byProv := map[string][]scored{}
	for _, pd := range provs {
		for _, c := range pd.cells {
			probs := g.passageProbs(gx, c.doc, zsScores[c.doc][c.prov])
			best := argmax(probs)
			sc := scored{present: c.present}
			if best >= 0 {
				sc.x, sc.hit = logit(probs[best]), c.present && cellCovers(docs[c.doc].Prep, probs, c)
			}
			byProv[pd.name] = append(byProv[pd.name], sc)
		}
	}
	return byProv
}

// fromBase is fitCalibration for training on top of base detectors: the
// base's calibration and prior are kept (no refit: a few decided contracts
// could not fit them better), turned into the feature index of docs.
func fromBase(base *Detectors, docs []TrainingDoc, provs []provData, zsScores [][][]float64, rel [][][]uint32) (*featureIndex, *detectorFit, [][]scored, *TrainReport) {
	fx := newFeatureIndex(docs, rel)
	cal := base.calibration()
	g := &detectorFit{w: make([]float64, len(fx.ids)), zsw: cal.A, bias: cal.B}
	for c, id := range fx.ids {
		if name, ok := featureName(id); ok {
			g.w[c] = cal.Prior[name]
		}
	}
	byProv := calibratedPairs(g, fx.generic(), docs, provs, zsScores)
	zsPairs := make([][]scored, len(provs))
	for j, pd := range provs {
		zsPairs[j] = byProv[pd.name]
	}
	rep := &TrainReport{ZeroShot: cal, refit: func(string) Calibration { return cal }}
	return fx, g, zsPairs, rep
}
