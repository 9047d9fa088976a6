package agent

import (
	"context"
	"fmt"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/search"
)

// A provision check answers "is it there at all?". Search always returns
// the passages that best match a question's words, even in a contract
// that has no such provision (a services agreement asked about source code
// escrow still returns its "malicious code" clause). When the question
// clearly asks about one of the built-in playbook's provisions
// (review.Reviewer.AskedProvisions) and the search was narrowed to some
// contracts, the offline reviewer (the same detectors as "pakton review")
// looks for that provision in each of them and the report says found — and
// where — or not found, with the reviewer's confidence.

// checkMaxDocs bounds the contracts a check looks in: as many as search
// puts provision passages first for.
const checkMaxDocs = search.MaxProvisionDocs

// provisionChecker is a provision finder that also reports the provisions
// it did not find (review.Finder, review.BuiltinProvisions).
type provisionChecker interface {
	Check(ctx context.Context, question string, docs []string) ([]review.Cell, error)
}

// checkProvisions looks for the provisions question asks about in each of
// docIDs. It returns nothing when the question matches no provision
// clearly, or when more than checkMaxDocs contracts were searched.
func (l *Library) checkProvisions(ctx context.Context, question string, docIDs []string) ([]report.Check, error) {
	if len(docIDs) == 0 || len(docIDs) > checkMaxDocs {
		return nil, nil
	}
	// The library's search finder checks too when it can (the contracts it
	// prepared for the search are reused).
	f, ok := l.Corpus.Models.Provisions.(provisionChecker)
	if !ok {
		var err error
		if f, err = review.NewBuiltinFinder(l.reviewDoc); err != nil {
			return nil, err
		}
	}
	if l.Corpus.Index != nil {
		question = l.Corpus.Index.Topic(question, docIDs)
	}
	cells, err := f.Check(ctx, question, docIDs)
	if err != nil {
		return nil, fmt.Errorf("provision check: %w", err)
	}
	var out []report.Check
	for _, c := range cells {
		ch := report.Check{Provision: c.Provision, DocID: c.DocID, DocName: c.DocName, Found: c.Found, Confidence: c.Confidence, Method: c.Method}
		if c.Found && len(c.Extracts) > 0 {
			sp := c.Extracts[0].Span
			ch.Path, ch.Span = c.Extracts[0].Path, &document.Span{Start: sp.Start, End: sp.End}
		}
		out = append(out, ch)
	}
	return out, nil
}

// applyChecks adds the checks to an evidence report and flags each
// provision not found.
func applyChecks(r *report.Report, checks []report.Check) {
	r.Checks = checks
	for _, c := range checks {
		if c.Found {
			continue
		}
		r.Flag(fmt.Sprintf("%s: no %s provision was found in it (the offline reviewer's confidence that it is there: %.2f); the provisions quoted are only the closest in wording", c.DocName, c.Provision, c.Confidence))
	}
}
