package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/pakton/pakton/internal/agent"
	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/collection"
	"github.com/pakton/pakton/internal/jobs"
	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/mcp"
	"github.com/pakton/pakton/internal/parse"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/server"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/web"
)

const serveUsage = `serve [flags]

Serves the HTTP API (docs/API.md), the web app and the MCP endpoint over the store.
Every request needs an API key ("Authorization: Bearer KEY"): on the first start
with no keys, an admin key is created and printed once, with a login URL for the
web app. Create more with "pakton keys create". --no-auth serves without keys and
is allowed only on a loopback address.`

func runServe(ctx context.Context, args []string) error {
	fs, g := newFlags("serve", serveUsage)
	addr := fs.String("addr", server.DefaultAddr, "address to listen on (host:port)")
	noAuth := fs.Bool("no-auth", false, "serve without API keys (loopback addresses only)")
	cors := fs.String("cors-origin", "", "the one browser origin allowed to call the API cross-origin (closed by default)")
	maxUpload := fs.String("max-upload", "100MB", "largest uploaded file")
	maxFiles := fs.Int("max-files", server.DefaultMaxFiles, "most files in one upload")
	maxAsks := fs.Int("max-asks", server.DefaultMaxAsks, "questions answered at once")
	maxCells := fs.Int("max-review-cells", server.DefaultMaxReviewCells, "most contracts × provisions of one review")
	maxJobs := fs.Int("max-jobs-per-key", server.DefaultMaxJobsPerKey, "most uploads and reviews one API key may have queued or running")
	jobWorkers := fs.Int("job-workers", server.DefaultJobWorkers, "uploads, and separately reviews, run at once (shared fairly between keys)")
	jobCPUs := fs.Int("job-cpus", 0, "files parsed and contracts reviewed at once by all background jobs together, one key's taking all but one (default: the CPUs)")
	retention := fs.Duration("job-retention", server.DefaultJobRetention, "keep finished jobs this long, then remove them (0 keeps them forever)")
	lease := fs.Duration("job-lease", jobs.DefaultLease, "on a cluster: a job whose server has not beaten for this long shows to the other servers as interrupted")
	rate := fs.Float64("rate", server.DefaultRate, "API requests per second per key (per address with --no-auth); an ask counts 5, an upload 10 (0 disables the limit)")
	burst := fs.Float64("burst", server.DefaultBurst, "API requests a key may make at once before --rate applies")
	connsPerClient := fs.Int("max-conns-per-client", server.DefaultMaxConnsPerClient, "open connections allowed from one remote address (-1: no limit; raise it behind a reverse proxy)")
	maxConns := fs.Int("max-conns", server.DefaultMaxConns, "open connections allowed in all (-1: no limit)")
	logFormat := fs.String("log", "text", "access log format on stderr: text or json")
	ocr := fs.String("ocr", "auto", "scanned PDF pages: auto (OCR when tesseract is installed), off, force")
	engine := fs.String("pdf-engine", "auto", "PDF text extractor: auto, pdfium (pure Go), pdftotext (poppler-utils)")
	maxText := fs.String("max-text", sizeFlag(parse.DefaultMaxText), "most text one uploaded document may hold (a file giving more is refused)")
	memory := addMemoryFlag(fs)
	maxTurns := fs.Int("max-turns", 0, "most questions the Interrogator asks the Researcher (default: the agents' default)")
	shard := fs.String("shard", "", "on a cluster: K/N — this server is server K (from 0) of N that split each collection's index segments between them (docs/SCALE.md)")
	peers := fs.String("peers", "", "with --shard: the N servers' base URLs, comma-separated, in server order (this one's included)")
	mf := addModelFlags(fs)
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q", rest[0])
	}
	if *retention < 0 {
		return fmt.Errorf("--job-retention %v: want 0 (keep forever) or more", *retention)
	}
	if *retention == 0 {
		*retention = -1 // server.Config: negative keeps forever
	}
	if *lease < time.Second {
		return fmt.Errorf("--job-lease %v: want at least 1s", *lease)
	}
	if *rate < 0 || *burst < 1 {
		return fmt.Errorf("--rate %g --burst %g: want a rate of 0 (no limit) or more and a burst of at least 1", *rate, *burst)
	}
	if *rate == 0 {
		*rate = -1 // server.Config: negative disables the limit
	}
	fileMax, err := parseSize(*maxUpload)
	if err != nil {
		return fmt.Errorf("--max-upload: %w", err)
	}
	textMax, err := maxTextOption(*maxText)
	if err != nil {
		return err
	}
	budget, err := memoryOption(*memory)
	if err != nil {
		return err
	}
	var logger *slog.Logger
	switch *logFormat {
	case "text":
		logger = slog.New(slog.NewTextHandler(stderr, nil))
	case "json":
		logger = slog.New(slog.NewJSONHandler(stderr, nil))
	default:
		return fmt.Errorf("--log %q: want text or json", *logFormat)
	}
	roles, err := mf.roles()
	if err != nil {
		return fmt.Errorf("%w for evidence reports", err)
	}
	sm, err := envSearchModels()
	if err != nil {
		return err
	}

	st, err := g.openOrCreate(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	shardCfg, err := parseShard(*shard, *peers)
	if err != nil {
		return err
	}
	cfg := server.Config{
		Shard: shardCfg,
		Store: st, Addr: *addr, NoAuth: *noAuth, CORSOrigin: strings.TrimRight(*cors, "/"),
		MaxFileBytes: fileMax, MaxFiles: *maxFiles, MaxAsks: *maxAsks, MaxTurns: *maxTurns, MaxReviewCells: *maxCells, MaxJobsPerKey: *maxJobs, JobWorkers: *jobWorkers, JobCPUs: *jobCPUs,
		JobRetention: *retention, JobLease: *lease, Rate: *rate, Burst: *burst, MaxConnsPerClient: *connsPerClient, MaxConns: *maxConns,
		Parse: parse.Options{OCR: *ocr, PDFEngine: *engine, MaxText: textMax}, IngestMemory: budget,
		Embedder: sm.Embedder, Reranker: sm.Reranker, Models: roles, Logger: logger,
		OpenAtStart: true,
	}
	if roles.Configured() {
		ext, closeExt, err := externalTools(ctx, *mf.path)
		if err != nil {
			return err
		}
		defer closeExt()
		cfg.External = ext
	}
	var secret string
	var existing []auth.Key
	if !*noAuth {
		keys, err := openKeys(ctx, st)
		if err != nil {
			return err
		}
		cfg.Keys = keys
		if secret, err = keys.EnsureAdmin(ctx, "local admin (created by pakton serve)"); err != nil {
			return err
		}
		if secret == "" {
			if existing, err = keys.List(ctx); err != nil {
				return err
			}
		}
	}
	svc, err := mountExtras(&cfg, st, roles)
	if err != nil {
		return err
	}
	defer svc.Close()
	srv, err := server.New(ctx, cfg)
	if err != nil {
		return err
	}
	// A background job holds one of the runtime's processors while it
	// computes, and the threads reading uploads run at a lower priority
	// (server.Config.IngestNice): that only puts searches first if they
	// still have processors of their own to run on. The runtime gets one
	// more per processor slot of background jobs, and the operating
	// system's scheduler chooses between the threads.
	jobSlots := *jobCPUs
	if jobSlots <= 0 {
		jobSlots = runtime.NumCPU()
	}
	runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + jobSlots)
	writeServing(stderr, st.Location(), *addr, *noAuth, secret, existing)
	return srv.ListenAndServe(ctx)
}

// writeServing says where the server listens and how to reach it: in
// no-auth mode that anyone can, else the admin key just created (shown only
// now), else the keys that exist.
func writeServing(w io.Writer, location, addr string, noAuth bool, secret string, existing []auth.Key) {
	base := "http://" + addr
	fmt.Fprintf(w, "pakton: serving store %s on %s\n", location, base)
	switch {
	case noAuth:
		fmt.Fprintf(w, "pakton: no-auth mode: anyone who can reach %s may use every collection\n", addr)
	case secret != "":
		fmt.Fprintf(w, "\npakton: created an admin API key (shown only now; it is stored hashed):\n\n    %s\n\n"+
			"Open the web app logged in:  %s/#key=%s\n"+
			"Use the API:                 curl -H 'Authorization: Bearer %s' %s/api/v1/collections\n"+
			"Manage keys with \"pakton keys\".\n\n", secret, base, secret, secret, base)
	default:
		writeKeysHint(w, existing, location, base)
	}
}

// mountExtras wires the collection service, the web app and the MCP
// endpoint into the server: the API and /mcp answer from one service, so the
// process keeps one index per collection. The MCP backend binds no
// collection itself: the server binds each request to its key's collection.
// The caller closes the service once the server has stopped.
func mountExtras(cfg *server.Config, st *store.Store, roles llm.Roles) (*collection.Service, error) {
	m := collection.Models{Search: search.Models{Embedder: cfg.Embedder, Reranker: cfg.Reranker}, External: cfg.External}
	if roles.Configured() {
		models, err := agent.ModelsFrom(roles)
		if err != nil {
			return nil, err
		}
		m.Agents = &models
	}
	opt := collection.Options{Models: m, Log: cfg.Logger}
	if cfg.Shard != nil {
		opt.Shard, opt.Sharding = cfg.Shard.LoadShard(), cfg.Shard.Sharding()
	}
	svc := collection.New(st, opt)
	cfg.Collections = svc
	cfg.MCP = mcp.HTTPHandler(mcp.NewStoreBackend(svc, ""))
	cfg.UI = web.Handler()
	return svc, nil
}

// writeKeysHint tells the operator of a server whose store already has keys
// how to get one to log in with: secrets are stored hashed and shown only
// when created, so the first start's key cannot be shown again.
func writeKeysHint(w io.Writer, keys []auth.Key, storeDir, base string) {
	admins := 0
	for _, k := range keys {
		if k.Admin {
			admins++
		}
	}
	fmt.Fprintf(w, "\npakton: the store has %s (%d admin); a key's secret is shown only when it is created.\n"+
		"Lost it? Create another and log in with it:\n\n"+
		"    pakton keys create --admin --name NAME --store %s\n"+
		"    open %s/#key=<the new key>\n\n"+
		"\"pakton keys list\" shows the keys, \"pakton keys revoke ID\" removes one.\n\n",
		plural(len(keys), "1 API key", fmt.Sprintf("%d API keys", len(keys))), admins, shellQuote(storeDir), base)
}

// shellQuote quotes s for a POSIX shell when it holds anything but safe
// characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// parseShard reads --shard K/N and --peers URL,…; the servers reach each
// other with the admin key in PAKTON_SHARD_KEY.
func parseShard(shard, peers string) (*server.ShardConfig, error) {
	if shard == "" {
		if peers != "" {
			return nil, fmt.Errorf("--peers is for a sharded server: give --shard K/N too")
		}
		return nil, nil
	}
	var k, n int
	if _, err := fmt.Sscanf(shard, "%d/%d", &k, &n); err != nil || n < 1 || k < 0 || k >= n {
		return nil, fmt.Errorf("--shard %q: want K/N with 0 ≤ K < N (e.g. 0/2)", shard)
	}
	var urls []string
	for _, p := range strings.Split(peers, ",") {
		if p = strings.TrimSpace(p); p != "" {
			urls = append(urls, p)
		}
	}
	if len(urls) != n {
		return nil, fmt.Errorf("--peers: %d URLs for %d servers: list every server's base URL, this one's included, in server order", len(urls), n)
	}
	key := os.Getenv("PAKTON_SHARD_KEY")
	if key == "" && n > 1 {
		return nil, fmt.Errorf("--shard: set PAKTON_SHARD_KEY to an admin API key every server of the cluster accepts (they ask each other with it)")
	}
	return &server.ShardConfig{K: k, N: n, Peers: urls, Key: key}, nil
}
