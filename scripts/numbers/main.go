// Command numbers measures pakton's headline numbers and renders them into
// the README and docs/EVALUATION.md.
//
//	go run ./scripts/numbers                 # measure (about 30 minutes on 2 cores), write docs/numbers.json, render
//	go run ./scripts/numbers -render         # render the pages again from docs/numbers.json
//
// It runs from the repository root on a committed tree: it builds pakton,
// runs the documented commands (LegalBench-RAG's four subsets and the CUAD
// sets beyond the templates, the offline review cross-validated in four
// folds) with their JSON reports in a temporary directory, and writes
// docs/numbers.json with the commit measured, the day, the commands and the
// fingerprint of the tuned constants docs/EVALUATION.md names. Then it
// replaces the block between the numbers markers in README.md and
// docs/EVALUATION.md. Commit the three files together; docs/numbers_test.go
// fails when they disagree, or when the constants no longer match.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/pakton/pakton/internal/eval"
	"github.com/pakton/pakton/internal/eval/headline"
)

const (
	numbersFile    = "docs/numbers.json"
	readmeFile     = "README.md"
	evaluationFile = "docs/EVALUATION.md"
)

func main() {
	data := flag.String("data", "../shared/data", "the shared data directory (legalbenchrag/, cuad/)")
	render := flag.Bool("render", false, "only render the pages from "+numbersFile+", measuring nothing")
	dirty := flag.Bool("dirty", false, "measure a tree with uncommitted changes (the numbers then name no commit that holds the code: for trying, not for committing)")
	keep := flag.String("keep", "", "keep the reports and logs in this directory (default: a temporary one, removed)")
	flag.Parse()
	if err := run(*data, *render, *dirty, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "numbers:", err)
		os.Exit(1)
	}
}

func run(data string, renderOnly, dirty bool, keep string) error {
	if _, err := os.Stat(evaluationFile); err != nil {
		return fmt.Errorf("run from the repository root (%s not found)", evaluationFile)
	}
	if renderOnly {
		n, err := headline.Load(numbersFile)
		if err != nil {
			return err
		}
		return renderPages(n)
	}
	commit, err := commitOf(dirty)
	if err != nil {
		return err
	}
	names, err := headline.Named(evaluationFile)
	if err != nil {
		return err
	}
	decls, err := headline.Declarations(".", names)
	if err != nil {
		return err
	}
	dir := keep
	if dir == "" {
		if dir, err = os.MkdirTemp("", "pakton-numbers-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	n := &headline.Numbers{Commit: commit, Measured: time.Now().UTC().Format("2006-01-02"), Fingerprint: headline.Fingerprint(decls), Constants: decls}
	if err := measure(n, data, dir); err != nil {
		return err
	}
	if err := headline.Write(numbersFile, n); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "numbers: wrote %s (commit %s)\n", numbersFile, commit)
	return renderPages(n)
}

// commitOf returns HEAD's commit, refusing a tree whose tracked files
// differ from it (but for the files this command writes).
func commitOf(dirty bool) (string, error) {
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "", fmt.Errorf("git rev-parse HEAD: %w (run in a git checkout)", err)
	}
	commit := strings.TrimSpace(string(out))
	st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output()
	if err != nil {
		return "", fmt.Errorf("git status: %w", err)
	}
	var changed []string
	for _, l := range strings.Split(strings.TrimSpace(string(st)), "\n") {
		if f := strings.TrimSpace(l); len(f) > 3 {
			if p := strings.TrimSpace(f[2:]); p != numbersFile && p != readmeFile && p != evaluationFile {
				changed = append(changed, p)
			}
		}
	}
	if len(changed) > 0 {
		if !dirty {
			return "", fmt.Errorf("the tree has uncommitted changes (%s): commit them first, so the numbers name the commit that holds the code (or -dirty to try)", strings.Join(changed, ", "))
		}
		commit += "-dirty"
	}
	return commit, nil
}

// step is one measurement: the pakton arguments, with $DATA and $OUT for
// the data and report directories, and the report it writes.
type step struct {
	args   string
	report string
	read   func(n *headline.Numbers, path string, cmd int) error
}

func measure(n *headline.Numbers, data, dir string) error {
	bin := filepath.Join(dir, "pakton")
	fmt.Fprintln(os.Stderr, "numbers: go build ./cmd/pakton")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/pakton").CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %w\n%s", err, out)
	}
	lb := "$DATA/legalbenchrag"
	cuadSets := "--bench " + lb + "/benchmarks/cuad_dev.json --bench $OUT/sets/cuad_dev_newtypes.json --bench $OUT/sets/cuad_dev_paraphrased.json --unnamed"
	steps := []step{
		{args: "eval heldout --data $DATA --out $OUT/sets"},
		{args: "eval legalbench -q --corpus " + lb + "/corpus " + cuadSets + " --labels $DATA/cuad/review_dev.json --json $OUT/cuad.json", report: "cuad.json",
			read: subsets(data, map[string]string{"cuad_dev": "cuad", "cuad_dev_newtypes": "cuad-newtypes", "cuad_dev_paraphrased": "cuad-paraphrased"})},
		{args: "eval legalbench -q --corpus " + lb + "/corpus --bench " + lb + "/benchmarks/cuad_dev.json --provisions off --json $OUT/cuad-words.json", report: "cuad-words.json",
			read: subsets(data, map[string]string{"cuad_dev": "cuad-words"})},
		{args: "eval legalbench -q --corpus " + lb + "/corpus --bench " + lb + "/benchmarks/contractnli_dev.json --scope document --labels $DATA/cuad/review_dev.json --json $OUT/contractnli.json", report: "contractnli.json",
			read: subsets(data, map[string]string{"contractnli_dev": "contractnli"})},
		{args: "eval legalbench -q --corpus " + lb + "/corpus --bench " + lb + "/benchmarks/maud_dev.json --bench " + lb + "/benchmarks/privacy_qa_dev.json --labels $DATA/cuad/review_dev.json --json $OUT/maud-privacyqa.json", report: "maud-privacyqa.json",
			read: subsets(data, map[string]string{"maud_dev": "maud", "privacy_qa_dev": "privacyqa"})},
		{args: "eval review -q --folds 4 --labels $DATA/cuad/review_dev.json --corpus " + lb + "/corpus --json $OUT/review.json", report: "review.json", read: readReview},
	}
	for i, s := range steps {
		shown := "pakton " + strings.ReplaceAll(s.args, "$OUT/", "")
		n.Commands = append(n.Commands, shown)
		args := strings.Fields(strings.NewReplacer("$DATA", data, "$OUT", dir).Replace(s.args))
		fmt.Fprintf(os.Stderr, "numbers: [%d/%d] %s\n", i+1, len(steps), shown)
		start := time.Now()
		cmd := exec.Command(bin, args...)
		if nice, err := exec.LookPath("nice"); err == nil {
			cmd = exec.Command(nice, append([]string{"-n", "10", bin}, args...)...)
		}
		var log bytes.Buffer
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %w\n%s", shown, err, log.String())
		}
		_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("step%d.log", i+1)), log.Bytes(), 0o644)
		fmt.Fprintf(os.Stderr, "numbers: [%d/%d] done in %s\n", i+1, len(steps), time.Since(start).Round(time.Second))
		if s.read != nil {
			if err := s.read(n, filepath.Join(dir, s.report), i); err != nil {
				return err
			}
		}
	}
	return nil
}

// subsets reads a legalbench report's benchmarks, each under its key.
func subsets(data string, keys map[string]string) func(*headline.Numbers, string, int) error {
	return func(n *headline.Numbers, path string, cmd int) error {
		var rep eval.Report
		if err := readJSON(path, &rep); err != nil {
			return err
		}
		for bench, key := range keys {
			r, ok := rep.Benchmarks[bench]
			if !ok {
				return fmt.Errorf("%s: no benchmark %s", path, bench)
			}
			docs, err := corpusSize(data, bench)
			if err != nil {
				return err
			}
			n.Retrieval = append(n.Retrieval, headline.Subset{Key: key, Benchmark: bench, Queries: r.Queries, Scope: rep.Scope, Documents: docs,
				Provisions: provisionsOf(rep), Recall: r.Recall, Precision: r.Precision, Chars: r.Chars, DRM: r.DRM,
				QueryMsP50: r.QueryMsP50, QueryMsP99: r.QueryMsP99, Quotes: r.Quotes, FirstElsewhere: r.FirstElsewhere, ProvisionTop1: r.ProvisionTop1,
				ShortTop1: r.ShortTop1, MidTokenTop1: r.MidTokenTop1,
				Command: cmd})
		}
		return nil
	}
}

// provisionsOf names the detectors mode of a run, as EVALUATION.md's table
// shows it.
func provisionsOf(rep eval.Report) string {
	switch {
	case rep.Provisions == "":
		return "off (words only)"
	case strings.Contains(rep.Provisions, "cross-validated"):
		return "cv (the default)"
	}
	return rep.Provisions
}

// corpusSize counts the documents of the corpus a benchmark's snippets come
// from (the directory of its first snippet's file).
func corpusSize(data, bench string) (int, error) {
	file := bench + ".json"
	b, err := eval.LoadBenchmark(filepath.Join(data, "legalbenchrag", "benchmarks", file))
	if err != nil {
		// The generated sets live with the reports; they search CUAD.
		return countFiles(filepath.Join(data, "legalbenchrag", "corpus", "cuad"))
	}
	for _, t := range b.Tests {
		for _, s := range t.Snippets {
			sub, _, _ := strings.Cut(s.FilePath, "/")
			return countFiles(filepath.Join(data, "legalbenchrag", "corpus", sub))
		}
	}
	return 0, fmt.Errorf("%s: no snippets", file)
}

func countFiles(dir string) (int, error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range es {
		if !e.IsDir() {
			n++
		}
	}
	return n, nil
}

func readReview(n *headline.Numbers, path string, cmd int) error {
	var rep eval.ReviewReport
	if err := readJSON(path, &rep); err != nil {
		return err
	}
	n.Review = headline.Review{Contracts: rep.Documents, Cells: rep.Cells, Folds: 4, MicroP: rep.Micro.Precision, MicroR: rep.Micro.Recall, MicroF1: rep.Micro.F1,
		MacroF1: rep.MacroF1, AUPR: rep.AUPR, PAt80R: rep.PAt80R, Values: rep.Micro.Values, ValuesRight: rep.Micro.ValuesRight, Command: cmd}
	return nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// renderPages replaces the numbers blocks of README.md and EVALUATION.md.
func renderPages(n *headline.Numbers) error {
	for _, p := range headline.Pages {
		page, err := os.ReadFile(p.File)
		if err != nil {
			return err
		}
		out := string(page)
		for _, r := range p.Blocks {
			body, err := r.Render(n)
			if err != nil {
				return err
			}
			if out, err = headline.SpliceNamed(out, r.Name, body); err != nil {
				return fmt.Errorf("%s: %w", p.File, err)
			}
		}
		if err := os.WriteFile(p.File, []byte(out), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "numbers: rendered %s\n", p.File)
	}
	return nil
}
