// Command clausecorpus prints how the clause parser cuts a corpus of plain
// text contracts, for judging parse quality by eye: per corpus, the
// structure statistics (nodes per document, documents without numbering,
// preamble share, very long leaves, parse time, nodes by kind); with
// -sample, numbered nodes whose own text is suspiciously short (false
// splits look like that), each with the text before it.
//
//	go run ./scripts/clausecorpus                          # statistics of ../shared/data/legalbenchrag/corpus/{cuad,contractnli}
//	go run ./scripts/clausecorpus -files                   # and one line per document
//	go run ./scripts/clausecorpus -sample                  # short numbered nodes of every seventh document
//	go run ./scripts/clausecorpus -corpus DIR cuad         # another corpus directory, one subdirectory
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
)

func main() {
	corpus := flag.String("corpus", "../shared/data/legalbenchrag/corpus", "the corpus directory; its subdirectories hold .txt contracts")
	files := flag.Bool("files", false, "with the statistics, one line per document: its nodes and numbered nodes")
	sample := flag.Bool("sample", false, "print numbered nodes whose own text is under 25 characters (at most 150, from every seventh document) instead of the statistics")
	flag.Parse()
	subs := flag.Args()
	if len(subs) == 0 {
		subs = []string{"cuad", "contractnli"}
	}
	found := false
	for _, sub := range subs {
		paths, _ := filepath.Glob(filepath.Join(*corpus, sub, "*.txt"))
		if len(paths) == 0 {
			continue
		}
		found = true
		var err error
		if *sample {
			err = printSample(paths)
		} else {
			err = printStats(sub, paths, *files)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "clausecorpus:", err)
			os.Exit(1)
		}
	}
	if !found {
		fmt.Fprintf(os.Stderr, "clausecorpus: no .txt files under %s/{%s}\n", *corpus, strings.Join(subs, ","))
		os.Exit(1)
	}
}

func printStats(sub string, paths []string, perFile bool) error {
	var docs, nodes, fallback, chars, fallbackChars, preChars, bigLeaf int
	kinds := map[clause.Kind]int{}
	var dur time.Duration
	for _, f := range paths {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		doc := &document.Document{Text: string(b)}
		start := time.Now()
		tr := clause.Parse(doc)
		dur += time.Since(start)
		docs++
		nodes += len(tr.Nodes)
		n := doc.Runes()
		chars += n
		numbered := 0
		for _, nd := range tr.Nodes {
			kinds[nd.Kind]++
			if nd.Label != "" {
				numbered++
			}
			if nd.Kind == clause.KindPreamble {
				preChars += nd.Span.Len()
			}
			if nd.Leaf() && nd.Own.Len() > 5000 {
				bigLeaf++
			}
		}
		if numbered == 0 {
			fallback++
			fallbackChars += n
		}
		if perFile {
			fmt.Printf("%5d nodes %4d numbered %s\n", len(tr.Nodes), numbered, filepath.Base(f))
		}
	}
	fmt.Printf("%s: %d docs, %.1f nodes/doc, %d docs without numbering (%.1f%% of text), preamble %.1f%% of text, %d leaves > 5000 chars, parse %v; kinds %v\n",
		sub, docs, float64(nodes)/float64(docs), fallback, 100*float64(fallbackChars)/float64(chars), 100*float64(preChars)/float64(chars), bigLeaf, dur, kinds)
	return nil
}

func printSample(paths []string) error {
	count := 0
	for fi, f := range paths {
		if fi%7 != 0 {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		doc := &document.Document{Text: string(b)}
		tr := clause.Parse(doc)
		for _, nd := range tr.Nodes[1:] {
			if nd.Own.Len() < 25 && nd.Label != "" && count < 150 {
				count++
				prev := tr.Nodes[nd.ID-1]
				fmt.Printf("%-40.40s %-10s %q  <- after %q\n", filepath.Base(f), nd.Label, doc.Slice(nd.Own), preview(doc.Slice(prev.Own), 50))
			}
		}
	}
	return nil
}

// preview collapses white space and cuts text to n characters.
func preview(text string, n int) string {
	text = strings.Join(strings.FieldsFunc(text, unicode.IsSpace), " ")
	if r := []rune(text); len(r) > n {
		return string(r[:n]) + "…"
	}
	return text
}
