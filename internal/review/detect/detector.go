package detect

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/pakton/pakton/internal/review/playbook"
)

// DetectorFormat is the version of the detectors file format.
const DetectorFormat = 1

// Detectors are what Train learns from a labels file: a logistic model per
// labelled provision, the calibration of the zero-shot scorer used for
// provisions nobody labelled, and word statistics of the training corpus.
// They are plain JSON, written deterministically, so a retrain with the same
// labels and code gives the same file.
type Detectors struct {
	Format    int    `json:"format"`
	Version   string `json:"version"`
	TrainedOn string `json:"trained_on"` // what labels, how many contracts
	Command   string `json:"command"`    // the command that reproduces the file
	// ZeroShotChosen lists the labelled provisions whose trained detector did
	// no better than the zero-shot scorer in cross-validation: they are
	// found zero-shot.
	ZeroShotChosen []string `json:"zero_shot_chosen,omitempty"`
	// ZeroShot calibrates zero-shot scores into probabilities; it was fitted
	// on the labelled provisions treated as unlabelled.
	ZeroShot Calibration `json:"zero_shot"`
	// IDF is the inverse document frequency of analyzed words over the
	// training corpus's passages, for the zero-shot scorer.
	IDF map[string]float64 `json:"idf"`
	// DefaultIDF is the IDF given to a word absent from IDF.
	DefaultIDF float64 `json:"default_idf"`
	// Clusters are the word clusters learnt from the training contracts'
	// text (clusters.go): word → cluster, whose features ("c:N") the
	// models weigh like any other.
	Clusters map[string]int `json:"word_clusters,omitempty"`
	// Vectors are the training contracts' words as vectors of meaning
	// (vectors.go), learnt from their text alone, which the models'
	// prototypes are compared in.
	Vectors *WordVectors `json:"word_vectors,omitempty"`
	// Models are the trained detectors, by provision. They come last in the
	// file, so a reader can take everything else without scanning them.
	Models []*Model `json:"models"`
}

// Model is one provision's trained detector: a logistic model over passage
// features, plus the calibration that turns the best passage's probability
// into the cell's confidence and the threshold at which a cell is found.
type Model struct {
	Name string `json:"name"`
	// Labelled is how many training contracts had the provision.
	Labelled int     `json:"labelled"`
	Bias     float64 `json:"bias"`
	// ZeroShotWeight multiplies the zero-shot score, a feature of every
	// passage, so the playbook's definition keeps a say.
	ZeroShotWeight float64            `json:"zero_shot_weight"`
	Weights        map[string]float64 `json:"weights"` // feature name → weight
	// Platt maps the logit of the best passage's probability to the cell's
	// confidence: σ(Platt[0]·logit(p) + Platt[1]).
	Platt     [2]float64 `json:"platt"`
	Threshold float64    `json:"threshold"`
	// LengthNorm, when set, scales the negative feature weights of a
	// passage of n features by min(1, √(LengthNorm/n)) (train_fit.go,
	// lengthNorm); detectors trained before it was introduced have none.
	LengthNorm int `json:"length_norm,omitempty"`
	// Prototypes, when set, add to a passage's logit the weighted cosines
	// of its views with the provision's labelled passages (vectors.go);
	// they need the file's Vectors.
	Prototypes *Prototypes `json:"prototypes,omitempty"`
}

// Calibration turns zero-shot scores into probabilities. A passage with
// zero-shot score s holds the provision with probability σ(A·s + B + prior),
// where prior is the sum of Prior's weights of the passage's generic
// features (what kind of passage it is, where, how long: learned from every
// labelled provision at once, so it applies to provisions nobody labelled —
// a definition of "Change of Control" is rarely the change-of-control
// clause). The cell's confidence is the best passage's probability passed
// through Platt (σ(Platt[0]·logit(p) + Platt[1]); none when zero), and
// cells at or above Threshold are found.
type Calibration struct {
	A         float64            `json:"a"`
	B         float64            `json:"b"`
	Prior     map[string]float64 `json:"prior,omitempty"`
	Platt     [2]float64         `json:"platt"`
	Threshold float64            `json:"threshold"`
}

// confidence maps the best passage's probability to the cell's.
func (c Calibration) confidence(best float64) float64 {
	if c.Platt[0] == 0 && c.Platt[1] == 0 {
		return best
	}
	return sigmoid(c.Platt[0]*logit(best) + c.Platt[1])
}

// defaultCalibration is used when no detectors file is given: a zero-shot
// score of 0.35 (about a third of the passage's weight in the provision's
// words) is a coin flip. It is a fallback, not a measured calibration.
var defaultCalibration = Calibration{A: 12, B: -4.2, Threshold: 0.5}

func (d *Detectors) calibration() Calibration {
	if d == nil || d.ZeroShot.A == 0 {
		return defaultCalibration
	}
	return d.ZeroShot
}

func (d *Detectors) idf(w string) float64 {
	if d == nil || d.IDF == nil {
		return 0
	}
	if v, ok := d.IDF[w]; ok {
		return v
	}
	return d.DefaultIDF
}

// lookup returns the trained model for a provision, or nil.
func (d *Detectors) lookup(p *playbook.Provision) *Model {
	if d == nil || strings.EqualFold(p.Detector, "none") {
		return nil
	}
	name := p.Name
	if p.Detector != "" {
		name = p.Detector
	}
	for _, m := range d.Models {
		if strings.EqualFold(m.Name, name) {
			return m
		}
	}
	return nil
}

// LoadDetectors reads a detectors file written by Train.
func LoadDetectors(path string) (*Detectors, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("detectors %s: %w", path, err)
	}
	return DecodeDetectors(path, data)
}

// DecodeDetectors reads a detectors file's bytes; name says where they came
// from in errors.
func DecodeDetectors(name string, data []byte) (*Detectors, error) {
	var d Detectors
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("detectors %s: %w", name, err)
	}
	if d.Format != DetectorFormat {
		return nil, fmt.Errorf("detectors %s: format %d, this pakton reads format %d (retrain with \"pakton review train\")", name, d.Format, DetectorFormat)
	}
	for _, m := range d.Models {
		if m == nil || m.Name == "" {
			return nil, fmt.Errorf("detectors %s: a model has no name", name)
		}
	}
	if err := d.checkNumbers(); err != nil {
		return nil, fmt.Errorf("detectors %s: %w", name, err)
	}
	if err := d.checkVectors(); err != nil {
		return nil, fmt.Errorf("detectors %s: %w", name, err)
	}
	return &d, nil
}

// Bounds on a detectors file's numbers. The built-in detectors' largest
// coefficient is 11.2 and largest IDF 10.0; a number far past these is a
// damaged or hostile file, and one beyond float range turns every
// confidence into NaN, which no table can be written with.
const (
	maxCoefficient = 1000 // weights, biases, calibration, Platt scaling
	maxIDF         = 100
	maxClusters    = 1 << 16
)

// checkNumbers refuses a detectors file with a number that is not finite
// or is absurd, naming the field.
func (d *Detectors) checkNumbers() error {
	var c numberCheck
	c.calibration("zero_shot", d.ZeroShot)
	c.within("default_idf", d.DefaultIDF, 0, maxIDF)
	for k, v := range d.IDF {
		c.within(fmt.Sprintf("idf[%q]", k), v, 0, maxIDF)
	}
	for k, v := range d.Clusters {
		c.within(fmt.Sprintf("word_clusters[%q]", k), float64(v), 0, maxClusters)
	}
	if c.err != nil {
		return c.err
	}
	for _, m := range d.Models {
		var mc numberCheck
		mc.coef("bias", m.Bias)
		mc.coef("zero_shot_weight", m.ZeroShotWeight)
		mc.coef("platt[0]", m.Platt[0])
		mc.coef("platt[1]", m.Platt[1])
		mc.within("threshold", m.Threshold, 0, 1)
		for k, v := range m.Weights {
			mc.coef(fmt.Sprintf("weights[%q]", k), v)
		}
		if mc.err != nil {
			return fmt.Errorf("model %q: %w", m.Name, mc.err)
		}
	}
	return nil
}

// checkVectors refuses word vectors that do not decode, and prototypes
// that are not finite, have no word vectors to be compared in, or have
// vectors of another length.
func (d *Detectors) checkVectors() error {
	if d.Vectors != nil {
		if err := d.Vectors.decode(); err != nil {
			return err
		}
	}
	for _, m := range d.Models {
		p := m.Prototypes
		if p == nil {
			continue
		}
		if d.Vectors == nil {
			return fmt.Errorf("model %q: prototypes without word_vectors", m.Name)
		}
		var c numberCheck
		c.coef("prototypes.scale", p.Scale)
		c.coef("prototypes.shift", p.Shift)
		for v, w := range p.Weights {
			c.coef(fmt.Sprintf("prototypes.weights[%d]", v), w)
			if n := len(p.Vectors[v]); n != 0 && n != d.Vectors.Dims {
				return fmt.Errorf("model %q: prototypes.vectors[%d] has %d numbers, the word vectors %d", m.Name, v, n, d.Vectors.Dims)
			}
			for _, x := range p.Vectors[v] {
				c.within(fmt.Sprintf("prototypes.vectors[%d]", v), float64(x), -1, 1)
			}
		}
		if c.err != nil {
			return fmt.Errorf("model %q: %w", m.Name, c.err)
		}
	}
	return nil
}

// numberCheck keeps the first number out of bounds.
type numberCheck struct{ err error }

func (c *numberCheck) coef(field string, v float64) {
	if c.err == nil && (math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > maxCoefficient) {
		c.err = fmt.Errorf("field %s: %v, want a finite number within ±%d", field, v, maxCoefficient)
	}
}

func (c *numberCheck) within(field string, v, lo, hi float64) {
	if c.err == nil && (math.IsNaN(v) || v < lo || v > hi) {
		c.err = fmt.Errorf("field %s: %v, want a number from %g to %g", field, v, lo, hi)
	}
}

func (c *numberCheck) calibration(where string, cal Calibration) {
	c.coef(where+".a", cal.A)
	c.coef(where+".b", cal.B)
	c.coef(where+".platt[0]", cal.Platt[0])
	c.coef(where+".platt[1]", cal.Platt[1])
	c.within(where+".threshold", cal.Threshold, 0, 1)
	for k, v := range cal.Prior {
		c.coef(fmt.Sprintf("%s.prior[%q]", where, k), v)
	}
}

// Save writes the detectors as indented JSON (map keys sorted, so the file
// is reproducible).
func (d *Detectors) Save(path string) error {
	data, err := json.MarshalIndent(d, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func logit(p float64) float64 {
	p = math.Min(math.Max(p, 1e-6), 1-1e-6)
	return math.Log(p / (1 - p))
}
