package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/pakton/pakton/internal/config"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/parse"
)

// globals are the flags every command accepts.
type globals struct {
	store      string
	collection string
}

// newFlags returns a flag set for a command with the global flags added.
func newFlags(name, usage string) (*flag.FlagSet, *globals) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	g := &globals{}
	fs.StringVar(&g.store, "store", config.StoreDir(), "store directory, or weaviate://host:port[,host:port…][?replicas=3] for a Weaviate cluster (env "+config.EnvStore+")")
	fs.StringVar(&g.collection, "collection", config.Collection(), "collection name (env "+config.EnvCollection+")")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: pakton %s\n\nFlags:\n", usage)
		fs.PrintDefaults()
	}
	return fs, g
}

// parseArgs parses flags placed anywhere among the arguments ("pakton search
// QUERY -k 3" as well as "pakton search -k 3 QUERY"); "--" ends the flags.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// parseFlags are the parser options shared by ingest and tree.
type parseFlags struct {
	ocr, engine, maxSize, maxText string
}

func addParseFlags(fs *flag.FlagSet) *parseFlags {
	p := &parseFlags{}
	fs.StringVar(&p.ocr, "ocr", "auto", "scanned PDF pages: auto (OCR when tesseract is installed), off, force")
	fs.StringVar(&p.engine, "pdf-engine", "auto", "PDF text extractor: auto, pdfium (pure Go), pdftotext (poppler-utils)")
	fs.StringVar(&p.maxSize, "max-size", sizeFlag(parse.MaxFileSize), "largest file to read (e.g. 50MB, 1GiB)")
	fs.StringVar(&p.maxText, "max-text", sizeFlag(parse.DefaultMaxText), "most text one document may hold (a file giving more is refused)")
	return p
}

// maxTextOption reads a --max-text value.
func maxTextOption(v string) (int, error) {
	n, err := parseSize(v)
	if err != nil {
		return 0, fmt.Errorf("--max-text: %w", err)
	}
	if n > 1<<30 {
		return 0, fmt.Errorf("--max-text %s: at most 1GiB", v)
	}
	return int(n), nil
}

func (p *parseFlags) options() (parse.Options, error) {
	n, err := parseSize(p.maxSize)
	if err != nil {
		return parse.Options{}, fmt.Errorf("--max-size: %w", err)
	}
	switch p.ocr {
	case parse.OCRAuto, parse.OCROff, parse.OCRForce:
	default:
		return parse.Options{}, fmt.Errorf("--ocr %q: want auto, off or force", p.ocr)
	}
	switch p.engine {
	case parse.EngineAuto, parse.EnginePDFium, parse.EnginePDFToText:
	default:
		return parse.Options{}, fmt.Errorf("--pdf-engine %q: want auto, pdfium or pdftotext", p.engine)
	}
	maxText, err := maxTextOption(p.maxText)
	if err != nil {
		return parse.Options{}, err
	}
	return parse.Options{MaxBytes: n, OCR: p.ocr, PDFEngine: p.engine, MaxText: maxText}, nil
}

func sizeFlag(n int64) string { return strconv.FormatInt(n>>20, 10) + "MiB" }

// addMemoryFlag adds --ingest-memory, the memory budget of ingestion.
func addMemoryFlag(fs *flag.FlagSet) *string {
	return fs.String("ingest-memory", sizeFlag(ingest.DefaultMemory), "memory the documents being read and analyzed at once may take together; a document needing more fails alone, others wait their turn")
}

// memoryOption reads an --ingest-memory value.
func memoryOption(v string) (int64, error) {
	n, err := parseSize(v)
	if err != nil {
		return 0, fmt.Errorf("--ingest-memory: %w", err)
	}
	if n < 32<<20 {
		return 0, fmt.Errorf("--ingest-memory %s: at least 32MiB", v)
	}
	return n, nil
}

// parseSize reads a byte count with an optional unit: 1000, 200KB, 50MB,
// 1.5GB (powers of 1000) or 200KiB, 50MiB, 1GiB (powers of 1024).
func parseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	units := []struct {
		suffix string
		mult   float64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}}
	mult := 1.0
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("%q is not a size (e.g. 200MB, 1GiB)", s)
	}
	return int64(v * mult), nil
}

// stdout and stderr are variables so tests can capture the commands' output.
var (
	stdout io.Writer = os.Stdout
	stderr io.Writer = os.Stderr
)

// newCommandFlags returns the flag set of a command that takes no store flags
// (eval's subcommands, migrate): errors and help go to stderr, and the help is
// "Usage: pakton NAME SYNOPSIS", the paragraph about the command, the flags.
func newCommandFlags(name, synopsis, about string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	setUsage(fs, synopsis, about)
	return fs
}

// setUsage makes fs's help "Usage: pakton NAME SYNOPSIS", the paragraph
// about the command and the flags.
func setUsage(fs *flag.FlagSet, synopsis, about string) {
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: pakton %s %s\n\n%s\n\nFlags:\n", fs.Name(), synopsis, about)
		fs.PrintDefaults()
	}
}

// parseNoArgs parses the flags of a command that takes no positional
// arguments and refuses any: "NAME: unexpected argument".
func parseNoArgs(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

// textArg parses the flags of a command whose positional arguments are one
// text (a query, a question) and returns the text; with none it prints the
// help and says "no WHAT given".
func textArg(fs *flag.FlagSet, args []string, what string) (string, error) {
	words, err := parseArgs(fs, args)
	if err != nil {
		return "", err
	}
	text := strings.TrimSpace(strings.Join(words, " "))
	if text == "" {
		fs.Usage()
		return "", fmt.Errorf("no %s given", what)
	}
	return text, nil
}

// addLabelFlags registers --labels and --corpus, the review labels an eval
// subcommand scores against (eval review, dealroom, learning).
func addLabelFlags(fs *flag.FlagSet) (labels, corpus *string) {
	labels = fs.String("labels", "../shared/data/cuad/review_dev.json", "labels file (format: docs/PLAYBOOKS.md) or a LegalBench-RAG benchmark of templated questions; with --playbook merger the default is "+mergerDevLabels)
	corpus = fs.String("corpus", "../shared/data/legalbenchrag/corpus", "directory the labels' file paths are relative to")
	return labels, corpus
}

// mergerDevLabels are the labels of the merger playbook's deal points: the
// MAUD development questions, one deal point per question.
const mergerDevLabels = "../shared/data/legalbenchrag/benchmarks/maud_dev.json"

// stageProgress prints "STAGE DONE/TOTAL" over itself on stderr, ending the
// line when a stage is done; nil when quiet.
func stageProgress(quiet bool) func(stage string, done, total int) {
	if quiet {
		return nil
	}
	return func(stage string, done, total int) {
		fmt.Fprintf(stderr, "\r%s %d/%d   ", stage, done, total)
		if done == total {
			fmt.Fprintln(stderr)
		}
	}
}

// addReportFlags registers --json and -q, the report file and the quiet
// switch of eval's subcommands.
func addReportFlags(fs *flag.FlagSet) (jsonOut *string, quiet *bool) {
	jsonOut = fs.String("json", "", "write the JSON report to this file")
	quiet = fs.Bool("q", false, "no progress on stderr")
	return jsonOut, quiet
}

// addPlaybookFlag registers --playbook, a playbook file that replaces the
// built-in one (eval review, eval learning, review train).
func addPlaybookFlag(fs *flag.FlagSet) *string {
	return fs.String("playbook", "", "playbook: a built-in one by name (\"builtin\", the default; \"merger\") or a file (YAML)")
}
