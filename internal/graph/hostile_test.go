package graph

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
)

// hostileShapes are one-line texts that made extraction quadratic: each is
// one item repeated.
var hostileShapes = []struct{ name, item string }{
	{"inline", "the widget maker (the \"Term%d\") and "},
	{"means", "\"Term%d\" means a thing, "},
	{"uses", "(the \"T%d\") T1 T2 T3 "},
	{"refs", "see Section %d.7 and "},
	{"bare", "hereinafter referred to as Foo%d "},
}

func hostileDoc(item string, size int) (*document.Document, *clause.Tree) {
	var b strings.Builder
	b.WriteString("AGREEMENT\n\n1. Definitions\n\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, item, i)
	}
	doc := &document.Document{Text: b.String()}
	return doc, clause.Parse(doc)
}

// TestExtractLongLine: 2 MB of inline definitions on one line is read
// within the deadline ingestion gives a graph (30 s plus 1 s per MB);
// quadratic, it took 49 s. With PAKTON_SLOW=1 every hostile shape is tried.
func TestExtractLongLine(t *testing.T) {
	shapes := hostileShapes[:1]
	if os.Getenv("PAKTON_SLOW") != "" {
		shapes = hostileShapes
	}
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			doc, tr := hostileDoc(sh.item, 2<<20)
			ctx, cancel := context.WithTimeout(context.Background(), 32*time.Second)
			defer cancel()
			g, err := ExtractContext(ctx, doc, tr)
			if err != nil {
				t.Fatalf("2 MB of %q: %v", sh.item, err)
			}
			if err := check(doc, tr, g); err != nil {
				t.Fatal(err)
			}
			if len(g.Definitions) == 0 && len(g.References) == 0 {
				t.Errorf("nothing found in 2 MB of %q", sh.item)
			}
		})
	}
}

// countdown is a context that is done after n calls to Err.
type countdown struct {
	context.Context
	n atomic.Int64
}

func (c *countdown) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestExtractContextStops: a cancelled extraction returns the context's
// error, not a partial graph, and stops while reading (cancelled after ten
// looks at its context, it has looked at least ten times: the loops look,
// not only the start and the end).
func TestExtractContextStops(t *testing.T) {
	for _, sh := range hostileShapes {
		doc, tr := hostileDoc(sh.item, 256<<10)
		for _, after := range []int64{0, 2, 10} {
			ctx := &countdown{Context: context.Background()}
			ctx.n.Store(after)
			g, err := ExtractContext(ctx, doc, tr)
			if !errors.Is(err, context.Canceled) || g != nil {
				t.Errorf("%s, cancelled after %d looks: %v, graph %v", sh.name, after, err, g != nil)
			}
		}
	}
}

// BenchmarkExtractLongLine measures extraction of 1 MB one-line hostile
// texts: linear, the time per MB stays flat as the size grows.
func BenchmarkExtractLongLine(b *testing.B) {
	for _, sh := range hostileShapes {
		for _, size := range []int{256 << 10, 1 << 20} {
			doc, tr := hostileDoc(sh.item, size)
			b.Run(fmt.Sprintf("%s/%dKB", sh.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(size))
				for b.Loop() {
					Extract(doc, tr)
				}
			})
		}
	}
}
