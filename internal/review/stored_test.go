package review

import (
	"context"
	"reflect"
	"testing"

	"github.com/pakton/pakton/examples"
	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/answer"
	"github.com/pakton/pakton/internal/review/detect"
)

// TestReviewStoredLikeFresh checks that reviewing a contract from the
// preparation stored at ingest (with the answer readers' sections) gives
// every cell of the built-in playbook exactly as reviewing it from its text.
func TestReviewStoredLikeFresh(t *testing.T) {
	pb, det := Builtin()
	rev, err := NewReviewer(pb, det)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, name := range []string{"contracts/distribution-agreement.txt", "contracts/master-services-agreement.txt", "contracts/mutual-nda.md"} {
		b, err := examples.FS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		doc := &document.Document{ID: name, Name: name, Format: "text", Text: string(b)}
		d := detect.Doc{ID: name, Name: name, Doc: doc, Tree: clause.Parse(doc)}
		want, err := rev.Review(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		p, err := detect.Prepare(d)
		if err != nil {
			t.Fatal(err)
		}
		stored := p.Encode(answer.Sections(p)...)
		reads := 0
		d.Stored = func() []byte { reads++; return stored }
		got, err := rev.Review(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		if reads != 1 {
			t.Errorf("%s: stored preparation read %d times, want once", name, reads)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the review from the stored preparation differs from the review from the text", name)
		}
		found := 0
		for _, c := range want.Cells {
			if c.Found {
				found++
			}
		}
		t.Logf("%s: %d cells, %d found", name, len(want.Cells), found)
	}
}
