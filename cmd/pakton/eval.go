package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pakton/pakton/internal/agent"
	"github.com/pakton/pakton/internal/config"
	"github.com/pakton/pakton/internal/eval"
	"github.com/pakton/pakton/internal/eval/contractnli"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/search"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func runEval(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "contractnli" {
		return runEvalContractNLI(ctx, args[1:])
	}
	if len(args) > 0 && args[0] == "review" {
		return runEvalReview(ctx, args[1:])
	}
	if len(args) > 0 && args[0] == "learning" {
		return runEvalLearning(ctx, args[1:])
	}
	if len(args) > 0 && args[0] == "nli-labels" {
		return runEvalNLILabels(ctx, args[1:])
	}
	if len(args) > 0 && args[0] == "dealroom" {
		return runEvalDealRoom(ctx, args[1:])
	}
	if len(args) > 0 && args[0] == "heldout" {
		return runEvalHeldOut(args[1:])
	}
	if len(args) > 0 && args[0] == "copies" {
		return runEvalCopies(args[1:])
	}
	if len(args) == 0 || args[0] != "legalbench" {
		return fmt.Errorf("usage: pakton eval legalbench [--corpus DIR] [--bench FILE…] [--scope corpus|document] [--method %s] [--store DIR|weaviate://…] [--provisions builtin|cv|zero-shot|off] [--json OUT]\n"+
			"       pakton eval heldout [--data DIR] [--out DIR]\n"+
			"       pakton eval dealroom [--labels FILE] [--corpus DIR] [--folds K] [--json OUT]\n"+
			"       pakton eval copies --from DIR --copies N --out DIR\n"+
			"       pakton eval review [--labels FILE] [--corpus DIR] [--playbook FILE] [--folds K] [--zero-shot] [--json OUT]\n"+
			"       pakton eval nli-labels --out DIR [--data FILE] [--map FILE]\n"+
			"       pakton eval learning [--provisions a,b] [--sizes 5,10,20,40] [--draws N] [--folds K] [--json OUT]\n"+
			"       pakton eval contractnli --data FILE [--limit N] [--workers N] [--full] [--json OUT] [--llm-url URL --llm-model NAME]", strings.Join(eval.Methods, "|"))
	}
	fs := flag.NewFlagSet("eval legalbench", flag.ContinueOnError)
	corpus := fs.String("corpus", "../shared/data/legalbenchrag/corpus", "LegalBench-RAG corpus directory")
	var benches stringList
	fs.Var(&benches, "bench", "benchmark file (repeatable); none: the four LegalBench-RAG subsets in --benchmarks, ContractNLI searched in each query's own document")
	benchDir := fs.String("benchmarks", "../shared/data/legalbenchrag/benchmarks", "with no --bench: the directory holding "+strings.Join(defaultBenches, ", "))
	scope := fs.String("scope", "corpus", "corpus: search every document; document: search only each query's document")
	method := fs.String("method", "pakton", "retrieval method: "+strings.Join(eval.Methods, ", "))
	jsonOut, quiet := addReportFlags(fs)
	noExpand := fs.Bool("no-expand", false, "ablation: no query expansion with corpus-learned word associations")
	var stages search.Stages
	fs.BoolVar(&stages.NoRoute, "no-route", false, "ablation: search every document even when a question names a contract")
	stageFlags(fs, &stages) // --no-framing, --no-associations, --no-headings, --no-fill, --no-spread
	replicate := fs.Int("replicate", 1, "index every document N times (speed scaling runs only; scores are not comparable)")
	unnamed := fs.Bool("unnamed", false, "also search the built-in questions that name no contract and report how many routing narrowed")
	storeLoc := fs.String("store", "", "put the corpus into this store (a directory or weaviate://host:port…) and search the index loaded back from it, instead of indexing in memory")
	coll := fs.String("collection", "", "with --store: the collection to use (default legalbench-METHOD)")
	provisions := fs.String("provisions", "", "the review detectors' passage first for questions about a playbook provision, as pakton search does: builtin (the shipped detectors, as pakton search uses them — trained on CUAD review_dev contracts, so optimistic on those), cv (detectors trained in folds on --labels; each labelled contract searched with the detectors trained without it: the honest number on the CUAD dev set), zero-shot (as cv, but no provision gets a trained detector: how provisions without labels fare) or off (words only); default with --method pakton: cv when --labels can be read, else builtin (with a warning); off with the baselines")
	labelsPath := fs.String("labels", "../shared/data/cuad/review_dev.json", "with --provisions cv: the review labels to train on (file paths relative to --corpus)")
	folds := fs.Int("folds", 2, "with --provisions cv: the number of folds")
	heldOut := fs.Bool("hold-out-questions", true, "match a question to provisions with its own provision's playbook questions left out of that provision's profile (the question sets written next to the playbook echo its questions); false: the playbook as pakton search uses it")
	learn := fs.String("learn", "cv", "add to each question the words learnt from labelled questions like it (the benchmarks' own and --learn-from's): cv (in folds by document: no labelled document is searched with what was learnt from it) or off")
	var learnFrom stringList
	fs.Var(&learnFrom, "learn-from", "with --learn cv: also learn from this benchmark file's questions (repeatable)")
	learnFolds := fs.Int("learn-folds", 4, "with --learn cv: the number of folds by document")
	hitsOut := fs.String("hits", "", "write every query's hits to this file, one JSON line a query (to compare two runs hit by hit)")
	explain := fs.Bool("explain", false, "with --hits: add each query's plan as it ran (routing, words dropped and added, provision, score makeup)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	var scopes map[string]string
	if len(benches) == 0 {
		scopeSet := false
		fs.Visit(func(f *flag.Flag) { scopeSet = scopeSet || f.Name == "scope" })
		for _, b := range defaultBenches {
			p := filepath.Join(*benchDir, b)
			if _, err := os.Stat(p); err != nil {
				return fmt.Errorf("eval legalbench: no --bench given, and %w (--benchmarks DIR: the directory of %s)", err, strings.Join(defaultBenches, ", "))
			}
			benches = append(benches, p)
		}
		if !scopeSet {
			// ContractNLI's questions name no contract.
			scopes = map[string]string{"contractnli_dev": "document"}
		}
	}
	m, err := eval.MethodByName(*method)
	if err != nil {
		return err
	}
	if *noExpand {
		stages.NoAssociations, stages.NoHeadings = true, true
	}
	opt := eval.Options{CorpusDir: *corpus, Benches: benches, Scope: *scope, Scopes: scopes, Method: m, Replicate: *replicate, Collection: *coll, Stages: stages}
	if *storeLoc != "" {
		g := &globals{store: *storeLoc}
		st, err := g.openOrCreate(ctx)
		if err != nil {
			return err
		}
		defer st.Close()
		opt.Store = st
	}
	if *unnamed {
		if opt.Unnamed, err = eval.UnnamedQuestions(); err != nil {
			return err
		}
	}
	if !*quiet {
		opt.Progress = func(stage string, done, total int) {
			fmt.Fprintf(os.Stderr, "\r%s %d/%d", stage, done, total)
			if done == total {
				fmt.Fprintln(os.Stderr)
			}
		}
	}
	var labels *detect.Labels
	var labelsErr error
	if *provisions == "" || *provisions == "cv" || *provisions == "zero-shot" {
		labels, labelsErr = detect.LoadLabels(*labelsPath)
	}
	if *provisions == "" {
		switch {
		case m.Name() != "pakton":
			*provisions = "off"
		case labelsErr == nil:
			*provisions = "cv"
		default:
			// Never silently: the shipped detectors were trained on the CUAD
			// review_dev contracts, so on those they are optimistic.
			*provisions = "builtin"
			fmt.Fprintf(stderr, "eval legalbench: cannot read the labels (%v), so the shipped detectors are used: they were trained on the CUAD review_dev contracts and are optimistic on those (--provisions off: words only)\n", labelsErr)
		}
	}
	switch *provisions {
	case "off":
	case "builtin":
		opt.Provisions = eval.BuiltinProvisions()
	case "cv", "zero-shot":
		if labelsErr != nil {
			return labelsErr
		}
		if opt.Provisions, err = eval.CrossValidatedProvisions(ctx, *corpus, labels, *folds, 0, *provisions == "zero-shot", opt.Progress); err != nil {
			return err
		}
	default:
		return fmt.Errorf("eval legalbench: --provisions %q: want off, builtin, cv or zero-shot", *provisions)
	}
	if opt.Provisions != nil {
		opt.Provisions.HoldOutQuestions = *heldOut
	}
	switch *learn {
	case "off":
	case "cv":
		if m.Name() == "pakton" {
			opt.Learn = &eval.LearnSource{From: append(slices.Clone([]string(benches)), learnFrom...), Folds: *learnFolds}
		}
	default:
		return fmt.Errorf("eval legalbench: --learn %q: want cv or off", *learn)
	}
	if *hitsOut != "" {
		f, err := os.Create(*hitsOut)
		if err != nil {
			return fmt.Errorf("eval legalbench: --hits: %w", err)
		}
		defer f.Close()
		bw := bufio.NewWriter(f)
		opt.Hits, opt.Explain = bw, *explain
		defer func() {
			if err := bw.Flush(); err != nil {
				fmt.Fprintf(stderr, "eval legalbench: --hits: %v\n", err)
			}
		}()
	}
	rep, err := eval.Run(ctx, opt)
	if !*quiet {
		fmt.Fprintln(os.Stderr)
	}
	if err != nil {
		return err
	}
	eval.WriteTable(os.Stdout, rep)
	if len(rep.Benchmarks) > 1 {
		fmt.Println()
		eval.WriteTable2(os.Stdout, rep)
	}
	if *jsonOut != "" {
		if err := writeJSONFile(*jsonOut, rep); err != nil {
			return err
		}
	}
	return nil
}

// defaultBenches are the benchmark files eval legalbench runs when given
// none: LegalBench-RAG's four subsets (development halves).
var defaultBenches = []string{"privacy_qa_dev.json", "contractnli_dev.json", "maud_dev.json", "cuad_dev.json"}

// errNLINeedsModel explains how to configure the model ContractNLI needs.
var errNLINeedsModel = errors.New("ContractNLI classification needs a language model, and none is configured.\n" +
	"Labelling a hypothesis Entailment, Contradiction or NotMentioned is a judgement only a model can make; pakton does not guess one.\n" +
	"Point pakton at an OpenAI-compatible server, for example:\n" +
	"  Ollama: pakton eval contractnli --data FILE --llm-url http://localhost:11434/v1 --llm-model qwen3:8b\n" +
	"  vLLM:   pakton eval contractnli --data FILE --llm-url http://localhost:8000/v1 --llm-model Qwen/Qwen3-8B\n" +
	"or set " + config.EnvLLMURL + " and " + config.EnvLLMModel + ", or write a config file (--llm-config; see docs/MODELS.md)")

// runEvalContractNLI runs "pakton eval contractnli".
func runEvalContractNLI(ctx context.Context, args []string) error {
	fs := newCommandFlags("eval contractnli", "--data FILE [flags]",
		"Labels each (NDA, hypothesis) pair of a ContractNLI file Entailment, Contradiction or NotMentioned with the agents\n"+
			"and reports accuracy, weighted F1 and F1 per class, as the PAKTON paper's Table 1. Needs a model server.")
	data := fs.String("data", "../shared/data/contractnli/dev.json", "ContractNLI dataset file, in the dataset's own JSON format")
	limit := fs.Int("limit", 0, "classify only the first N (document, hypothesis) pairs: documents in file order, hypotheses by number (0: all)")
	workers := fs.Int("workers", contractnli.DefaultWorkers, "pairs classified concurrently (the model server is the bottleneck)")
	full := fs.Bool("full", false, "run the whole Archivist/Interrogator loop per pair instead of the Researcher alone (about 5x the model calls)")
	maxTurns := fs.Int("max-turns", agent.DefaultMaxTurns, "most questions the Interrogator asks per pair (--full)")
	jsonOut, quiet := addReportFlags(fs)
	mf := addModelFlags(fs)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *limit < 0 || *workers < 1 || *maxTurns < 1 {
		return fmt.Errorf("eval contractnli: --limit must be 0 or more, --workers and --max-turns 1 or more")
	}
	roles, err := mf.roles()
	if err != nil {
		return err
	}
	if !roles.Configured() {
		return errNLINeedsModel
	}
	models, err := agent.ModelsFrom(roles)
	if err != nil {
		return err
	}
	opt := contractnli.Options{Data: *data, Limit: *limit, Workers: *workers, Full: *full, MaxTurns: *maxTurns, Models: models}
	if !*quiet {
		correct := 0
		opt.Progress = func(done, total int, r contractnli.Result) {
			outcome := string(r.Predicted)
			switch {
			case r.Error != "":
				outcome = "ERROR: " + r.Error
			case r.Predicted == r.Gold:
				correct++
			default:
				outcome += " (gold " + string(r.Gold) + ")"
			}
			fmt.Fprintf(stderr, "contractnli %d/%d (%d correct) %s %s: %s\n", done, total, correct, r.Document, r.Hypothesis, outcome)
		}
	}
	rep, err := contractnli.Run(ctx, opt)
	if err != nil {
		return err
	}
	contractnli.WriteTable(stdout, rep)
	if *jsonOut != "" {
		if err := writeJSONFile(*jsonOut, rep); err != nil {
			return err
		}
	}
	if rep.Errors > 0 && rep.Completed == 0 {
		return fmt.Errorf("eval contractnli: all %d pairs failed; the scores above mean nothing (first error: %s)", rep.Errors, rep.Failures[0].Error)
	}
	if rep.Errors > 0 {
		fmt.Fprintf(stderr, "contractnli: %d of %d pairs failed and are not scored (listed above)\n", rep.Errors, rep.Pairs)
	}
	return nil
}

// runEvalCopies runs "pakton eval copies": it writes N distinct copies of
// a corpus (each copy's parties renamed) for the scale measurements of
// docs/SCALE.md.
func runEvalCopies(args []string) error {
	fs := flag.NewFlagSet("eval copies", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "directory of .txt contracts (e.g. ../shared/data/legalbenchrag/corpus/cuad)")
	n := fs.Int("copies", 10, "copies of each contract (1: the corpus as it is)")
	out := fs.String("out", "", "directory to write the copies into")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *from == "" || *out == "" || fs.NArg() > 0 {
		return fmt.Errorf("usage: pakton eval copies --from DIR --copies N --out DIR")
	}
	return eval.DistinctCopies(*from, *out, *n, func(done, total int) {
		if done%50 == 0 || done == total {
			fmt.Fprintf(stderr, "copies: %d/%d contracts\n", done, total)
		}
	})
}

// runEvalHeldOut runs "pakton eval heldout": it writes the held-out
// benchmarks built from the development data and the team's question files.
func runEvalHeldOut(args []string) error {
	fs := flag.NewFlagSet("eval heldout", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "../shared/data", "the shared data directory (legalbenchrag/, cuad/)")
	out := fs.String("out", ".", "directory to write cuad_dev_newtypes.json, cuad_dev_paraphrased.json, cuad_named_dev.json, cuad_named_heldout.json and their mistyped-name variants into")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fmt.Errorf("eval heldout: %w", err)
	}
	b, err := eval.LoadBenchmark(filepath.Join(*data, "legalbenchrag", "benchmarks", "cuad_dev.json"))
	if err != nil {
		return err
	}
	review, err := eval.LoadReview(filepath.Join(*data, "cuad", "review_dev.json"))
	if err != nil {
		return err
	}
	nt, err := eval.NewTypes(b, review, filepath.Join(*data, "legalbenchrag", "corpus"))
	if err != nil {
		return err
	}
	para, err := eval.Paraphrase(b)
	if err != nil {
		return err
	}
	namedDev, namedHeld, err := eval.Named(review, filepath.Join(*data, "legalbenchrag", "corpus"))
	if err != nil {
		return err
	}
	typedDev, typedHeld, err := eval.NamedMistyped(review, filepath.Join(*data, "legalbenchrag", "corpus"))
	if err != nil {
		return err
	}
	for _, x := range []*eval.Benchmark{nt, para, namedDev, namedHeld, typedDev, typedHeld} {
		p := filepath.Join(*out, x.Name+".json")
		if err := eval.WriteBenchmark(p, x); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %d queries\n", p, len(x.Tests))
	}
	return nil
}

// writeJSONFile writes v as indented JSON to path (an eval's --json report).
func writeJSONFile(path string, v any) error {
	return eval.WriteJSONFile(path, v, "  ")
}
