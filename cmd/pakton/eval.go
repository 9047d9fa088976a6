package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/pakton/pakton/internal/eval"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func runEval(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] != "legalbench" {
		return fmt.Errorf("usage: pakton eval legalbench --corpus DIR --bench FILE [--bench FILE…] [--scope corpus|document] [--method %s] [--json OUT]", strings.Join(eval.Methods, "|"))
	}
	fs := flag.NewFlagSet("eval legalbench", flag.ContinueOnError)
	corpus := fs.String("corpus", "../shared/data/legalbenchrag/corpus", "LegalBench-RAG corpus directory")
	var benches stringList
	fs.Var(&benches, "bench", "benchmark file (repeatable)")
	scope := fs.String("scope", "corpus", "corpus: search every document; document: search only each query's document")
	method := fs.String("method", "pakton", "retrieval method: "+strings.Join(eval.Methods, ", "))
	jsonOut := fs.String("json", "", "write the JSON report to this file")
	quiet := fs.Bool("q", false, "no progress on stderr")
	noExpand := fs.Bool("no-expand", false, "ablation: no query expansion with corpus-learned word associations")
	noFill := fs.Bool("no-fill", false, "ablation: return only passages that match the question's words")
	replicate := fs.Int("replicate", 1, "index every document N times (speed scaling runs only; scores are not comparable)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if len(benches) == 0 {
		return fmt.Errorf("at least one --bench FILE is required")
	}
	m, err := eval.MethodByName(*method)
	if err != nil {
		return err
	}
	opt := eval.Options{CorpusDir: *corpus, Benches: benches, Scope: *scope, Method: m, Replicate: *replicate, NoExpand: *noExpand, NoFill: *noFill}
	if !*quiet {
		opt.Progress = func(stage string, done, total int) {
			fmt.Fprintf(os.Stderr, "\r%s %d/%d", stage, done, total)
			if done == total {
				fmt.Fprintln(os.Stderr)
			}
		}
	}
	rep, err := eval.Run(ctx, opt)
	if !*quiet {
		fmt.Fprintln(os.Stderr)
	}
	if err != nil {
		return err
	}
	eval.WriteTable(os.Stdout, rep)
	if *jsonOut != "" {
		data, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*jsonOut, append(data, '\n'), 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", *jsonOut, err)
		}
	}
	return nil
}
