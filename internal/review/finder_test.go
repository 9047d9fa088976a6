package review

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/parse"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/search/index"
)

// TestBuiltinLazyDetectorsMatchFull: the detectors decoded one model at a
// time are the ones the whole file decodes to.
func TestBuiltinLazyDetectorsMatchFull(t *testing.T) {
	pb, full := Builtin()
	lazy, err := builtinLazy()
	if err != nil {
		t.Fatal(err)
	}
	got, err := lazy.forPlaybook(pb)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Models) != len(full.Models) || len(full.Models) == 0 {
		t.Fatalf("lazy decoded %d models, the file has %d", len(got.Models), len(full.Models))
	}
	for _, m := range full.Models {
		var lm *detect.Model
		for _, x := range got.Models {
			if x.Name == m.Name {
				lm = x
			}
		}
		if lm == nil || !reflect.DeepEqual(lm, m) {
			t.Errorf("model %s differs when decoded lazily", m.Name)
		}
	}
	h, f := got.ZeroShot, full.ZeroShot
	if !reflect.DeepEqual(h, f) || !reflect.DeepEqual(got.IDF, full.IDF) || got.DefaultIDF != full.DefaultIDF || !reflect.DeepEqual(got.ZeroShotChosen, full.ZeroShotChosen) {
		t.Error("the lazily decoded head differs from the file's")
	}
	// A file laid out differently (no "models" key found) still decodes.
	other, err := decodeLazy("test", `{"format":1,"idf":{"x":1}}`)
	if err != nil || len(other.names) != 0 || other.head.IDF["x"] != 1 {
		t.Errorf("fallback decode: %v %+v", err, other)
	}
	if _, err := decodeLazy("test", `{"format":1,"models":[{"weights":{}}]}`); err == nil {
		t.Error("a model without a name was accepted")
	}
}

func exampleLoader(t *testing.T, loads *atomic.Int32) func(context.Context, string) (detect.Doc, error) {
	docs := map[string]*document.Document{}
	for _, name := range []string{"master-services-agreement.txt", "mutual-nda.md"} {
		d, err := parse.File(context.Background(), filepath.Join("..", "..", "examples", "contracts", name), parse.Options{})
		if err != nil {
			t.Fatal(err)
		}
		docs[name] = d
	}
	return func(_ context.Context, id string) (detect.Doc, error) {
		loads.Add(1)
		return detect.Doc{ID: id, Name: id, Doc: docs[id]}, nil
	}
}

// TestFinderFindsAndAbstains: the built-in finder returns the clause a
// provision question asks about where the contract has it, nothing where it
// has not, and reads no contract for a question about no provision.
func TestFinderFindsAndAbstains(t *testing.T) {
	var loads atomic.Int32
	load := exampleLoader(t, &loads)
	f, err := NewBuiltinFinder(load)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	text := func(h search.Hit) string {
		d, _ := load(ctx, h.DocID)
		return document.NewIndex(d.Doc.Text).Slice(h.Span)
	}
	both := []string{"master-services-agreement.txt", "mutual-nda.md"}

	hits, absent, err := f.FindProvisions(ctx, search.ProvisionRequest{Question: "Which law governs?", Docs: both})
	if err != nil || len(absent) != 0 {
		t.Fatal(err)
	}
	if len(hits) < 2 || hits[0].DocID == hits[1].DocID {
		t.Fatalf("governing law: want each contract's clause first: %+v", hits)
	}
	for _, h := range hits[:2] {
		if h.Provision != "Governing Law" || h.View != index.ViewProvision || !strings.Contains(strings.ToLower(text(h)), "governed by") || h.Span.Len() < minHitChars {
			t.Errorf("governing law passage %+v: %q", h, text(h))
		}
	}

	hits, absent, err = f.FindProvisions(ctx, search.ProvisionRequest{Question: "Can the customer terminate for convenience?", Docs: both})
	if err != nil {
		t.Fatal(err)
	}
	if len(absent) != 1 || absent[0].DocID != "mutual-nda.md" || absent[0].Provision != "Termination for Convenience" {
		t.Errorf("not found: want the NDA, got %+v", absent)
	}
	if len(hits) == 0 || hits[0].DocID != "master-services-agreement.txt" || !strings.Contains(text(hits[0]), "for convenience") || slices.ContainsFunc(hits, func(h search.Hit) bool { return h.DocID != hits[0].DocID }) {
		t.Errorf("termination for convenience: want the MSA's clause only, got %+v", hits)
	}

	loads.Store(0)
	if hits, absent, err := f.FindProvisions(ctx, search.ProvisionRequest{Question: "What colour is the sky today?", Docs: both}); err != nil || len(hits)+len(absent) != 0 || loads.Load() != 0 {
		t.Errorf("a question about no provision: %+v, %v, %d contracts read", hits, err, loads.Load())
	}

	// Check reports the abstention too.
	cells, err := f.Check(ctx, "Can the customer terminate for convenience?", both)
	if err != nil || len(cells) != 2 || !cells[0].Found || cells[1].Found {
		t.Errorf("check: %v %+v", err, cells)
	}
}

// TestAskedProvisionsHeldOut measures which provision a question asks
// about on questions the matcher has not seen: each of the built-in
// playbook's own questions, held out of its provision's profile. It guards
// the thresholds of AskedProvisions (measured: 40 of 58 answered, 36 right).
func TestAskedProvisionsHeldOut(t *testing.T) {
	pb := builtinPlaybook()
	lazy, err := builtinLazy()
	if err != nil {
		t.Fatal(err)
	}
	total, answered, right := 0, 0, 0
	for i := range pb.Provisions {
		for qi, q := range pb.Provisions[i].Questions {
			held := *pb
			held.Provisions = slices.Clone(pb.Provisions)
			p := &held.Provisions[i]
			p.Questions = slices.Delete(slices.Clone(p.Questions), qi, qi+1)
			r, err := NewReviewer(&held, &lazy.head)
			if err != nil {
				t.Fatal(err)
			}
			total++
			asked := r.AskedProvisions(q)
			if len(asked) > 0 {
				answered++
			}
			if slices.Contains(asked, pb.Provisions[i].Name) {
				right++
			}
		}
	}
	t.Logf("held-out playbook questions: %d, answered %d, right %d", total, answered, right)
	if total < 50 || answered < total/2 || float64(right) < 0.85*float64(answered) {
		t.Errorf("held-out playbook questions: %d, answered %d, right %d (want half answered, 85%% right)", total, answered, right)
	}
}

// TestFinderCancelledAndBadDocument: a cancelled question stops before
// reading a contract, and a contract that cannot be read is an error (not
// a silent "not found").
func TestFinderCancelledAndBadDocument(t *testing.T) {
	var loads atomic.Int32
	f, err := NewBuiltinFinder(exampleLoader(t, &loads))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := f.FindProvisions(ctx, search.ProvisionRequest{Question: "Which law governs?", Docs: []string{"mutual-nda.md"}}); !errors.Is(err, context.Canceled) || loads.Load() != 0 {
		t.Errorf("cancelled: %v, %d contracts read", err, loads.Load())
	}
	broken, err := NewBuiltinFinder(func(context.Context, string) (detect.Doc, error) { return detect.Doc{ID: "x"}, nil })
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := broken.FindProvisions(context.Background(), search.ProvisionRequest{Question: "Which law governs?", Docs: []string{"x"}}); err == nil || !strings.Contains(err.Error(), "no text") {
		t.Errorf("a contract without text: %v", err)
	}
}

func TestPervades(t *testing.T) {
	for _, tc := range []struct {
		spread, passages int
		want             bool
	}{
		{1, 5, false},   // the best alone singles itself out
		{2, 300, false}, // two of a long contract's passages
		{4, 300, false}, // at most maxSpread
		{5, 300, true},  // more than maxSpread
		{3, 25, true},   // a tenth of a short contract
		{2, 25, false},  // under a tenth
		{4, 40, true},   // a tenth
	} {
		if got := pervades(tc.spread, tc.passages); got != tc.want {
			t.Errorf("pervades(%d, %d) = %v, want %v", tc.spread, tc.passages, got, tc.want)
		}
	}
}

// TestAskedOneWordName: a question that holds a one-word provision name in
// the name's form, rare in the playbook, asks about that provision, though
// its verb is a word of another provision's name ("grant" of License
// Grant); a question that asks for a licence still goes to License Grant.
// Both with the full playbook (pakton ask) and with the provision's own
// questions held out (pakton eval dealroom).
func TestAskedOneWordName(t *testing.T) {
	pb, det := Builtin()
	for _, tc := range []struct{ question, want string }{
		{"Which agreements grant exclusivity?", "Exclusivity"},
		{"Which agreements grant a license to use the software?", "License Grant"},
		{"Which contracts grant an exclusive license?", "License Grant"},
	} {
		for _, without := range []string{"", tc.want} {
			r, err := MatcherWithout(pb, det, without)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.AskedProvisions(tc.question); !slices.Equal(got, []string{tc.want}) {
				t.Errorf("%q (questions of %q held out): asked %v, want [%s]", tc.question, without, got, tc.want)
			}
		}
	}
}

// TestZeroShotPervades: a provision nobody labelled (Data Protection is
// zero-shot in the built-in detectors) pervades a privacy policy whose
// every paragraph speaks of personal information, so puts nothing first
// there, but not a contract with one clause saying it; a trained
// provision's spread is the detector's alone.
func TestZeroShotPervades(t *testing.T) {
	for _, tc := range []struct {
		cc   checkedCell
		want bool
	}{
		{checkedCell{spread: 1, passages: 300, said: 5}, true},
		{checkedCell{spread: 1, passages: 300, said: 4}, false},
		{checkedCell{spread: 5, passages: 300}, true},
	} {
		if got := tc.cc.pervades(); got != tc.want {
			t.Errorf("%+v pervades = %v, want %v", tc.cc, got, tc.want)
		}
	}

	pb, det := Builtin()
	for _, x := range det.Models {
		if x.Name == "Data Protection" {
			t.Fatal("Data Protection has a trained detector: choose a provision nobody labelled")
		}
	}
	policy := "PRIVACY POLICY\n\n"
	for _, topic := range []string{"when you register an account", "when you contact customer support", "from the devices you use to access the app", "from our business partners and advertisers", "when you make a purchase through the site", "when you take part in a survey or contest"} {
		policy += "We collect personal information " + topic + ", and we use that personal information to provide and improve our services.\n\n"
	}
	policy += "If you live outside the United States, your personal data is processed in accordance with applicable data protection laws, and international transfers of personal data are protected by standard contractual clauses and security measures.\n\n"
	for _, topic := range []string{"cookies and similar technologies", "links to other websites", "children under the age of thirteen", "changes to this policy", "how to contact our support team", "promotions and contests", "mobile notifications", "account settings", "community forums", "gift cards", "referral programs", "customer reviews"} {
		for _, what := range []string{"This section explains our practices on %s.", "You can read more about %s in our help centre.", "Questions about %s may be sent to our support team at any time."} {
			policy += fmt.Sprintf(what, topic) + "\n\n"
		}
	}
	contract := "SERVICES AGREEMENT\n\n1. Services. The Supplier shall provide the services described in Schedule 1.\n\n" +
		"2. Fees. The Customer shall pay the fees within thirty days of each invoice.\n\n" +
		"3. Data Protection. The Supplier shall process Personal Data only on the Customer's documented instructions, in accordance with applicable Data Protection Laws, and shall notify the Customer without undue delay of any Personal Data breach.\n\n" +
		"4. Term. This Agreement continues for two years from the Effective Date.\n\n" +
		"5. Governing Law. This Agreement is governed by the laws of England.\n"
	docs := map[string]*document.Document{}
	for name, text := range map[string]string{"policy.txt": policy, "contract.txt": contract} {
		d, err := parse.Bytes(context.Background(), name, []byte(text), parse.Options{})
		if err != nil {
			t.Fatal(err)
		}
		docs[name] = d
	}
	f, err := NewFinder(pb, det, func(_ context.Context, id string) (detect.Doc, error) {
		return detect.Doc{ID: id, Name: id, Doc: docs[id]}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cells, err := f.check(ctx, []string{"Data Protection", "Governing Law"}, []string{"policy.txt", "contract.txt"})
	if err != nil {
		t.Fatal(err)
	}
	for _, cc := range cells {
		c := cc.cell
		if c.DocID == "policy.txt" && c.Provision == "Governing Law" {
			continue // the policy has no governing law clause
		}
		want := c.DocID == "policy.txt" && c.Provision == "Data Protection"
		t.Logf("%s, %s (%s): spread %d of %d, %d saying it", c.DocID, c.Provision, c.Method, cc.spread, cc.passages, cc.said)
		if !c.Found || cc.pervades() != want {
			t.Errorf("%s, %s (%s): found %v, pervades %v (spread %d of %d, %d saying it), want found, pervades %v",
				c.DocID, c.Provision, c.Method, c.Found, cc.pervades(), cc.spread, cc.passages, cc.said, want)
		}
		if c.Method != "zero-shot" && cc.said != 0 {
			t.Errorf("%s, %s: a trained provision counted %d passages saying it", c.DocID, c.Provision, cc.said)
		}
	}
}
