// Package server is pakton's HTTP API: collections, document upload with
// background ingestion jobs, search, questions answered as a stream of
// server-sent events, saved reports, and health checks, all under /api/v1
// and all authorized per collection with API keys (package auth). The web
// app and the MCP endpoint are mounted beside it and use the same API and
// keys. docs/API.md describes every route.
package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pakton/pakton/internal/agent"
	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/collection"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/jobs"
	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/parse"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/tool"
)

// Defaults for the limits in Config.
const (
	DefaultAddr            = "127.0.0.1:8080"
	DefaultMaxFileBytes    = 100 << 20
	DefaultMaxFiles        = 100
	DefaultMaxRequestBytes = 1 << 30
	DefaultMaxJSONBytes    = 1 << 20
	DefaultMaxAsks         = 4
	DefaultAskTimeout      = 10 * time.Minute
	DefaultAskQueueWait    = 2 * time.Minute
	DefaultJobRetention    = 7 * 24 * time.Hour
	DefaultRate            = 20
	DefaultBurst           = 40
	DefaultMaxReviewCells  = 50_000
	DefaultMaxJobsPerKey   = 8
	DefaultJobWorkers      = 2
	DefaultIngestNice      = 10
)

// Config configures a Server. Store is required; so is Keys unless NoAuth.
type Config struct {
	// Store is the open store the API serves. The server does not close it.
	Store *store.Store
	// Shard, when set, makes the server one of several sharing each
	// collection's index on a cluster, each scoring a part of its
	// segments (shard.go). A server that makes its own collection service
	// configures it so; one given Collections must have made it with
	// collection.Options{Shard: Shard.LoadShard(), Sharding: Shard.Sharding()}.
	Shard *ShardConfig
	// Keys authorizes requests. Required unless NoAuth.
	Keys *auth.Keyring
	// NoAuth serves every request as if made with an admin key. It is
	// refused unless the server listens on a loopback address, and then
	// requests must also name a loopback host (against DNS rebinding).
	NoAuth bool
	// Addr is the address ListenAndServe listens on (DefaultAddr).
	Addr string
	// CORSOrigin, when set, is the one browser origin (e.g.
	// "https://app.example.com") allowed to call the API from another
	// origin. Cross-origin requests from any other origin are refused.
	CORSOrigin string

	// MaxFileBytes bounds each uploaded file (DefaultMaxFileBytes).
	MaxFileBytes int64
	// MaxFiles bounds the files of one upload (DefaultMaxFiles).
	MaxFiles int
	// MaxRequestBytes bounds an upload request's body (DefaultMaxRequestBytes).
	MaxRequestBytes int64
	// MaxJSONBytes bounds the body of every JSON request (DefaultMaxJSONBytes).
	MaxJSONBytes int64
	// MaxAsks bounds the questions answered at once; more wait for a slot
	// up to AskQueueWait (DefaultMaxAsks).
	MaxAsks int
	// AskTimeout bounds one answer (DefaultAskTimeout).
	AskTimeout time.Duration
	// AskQueueWait bounds how long a question waits for a slot.
	AskQueueWait time.Duration
	// AskAnswerWait bounds how long an ask that asks back waits for the
	// user's answer (DefaultAskAnswerWait).
	AskAnswerWait time.Duration
	// MaxReviewCells bounds contracts × provisions of one review
	// (DefaultMaxReviewCells): a review past it is refused with a 400.
	MaxReviewCells int
	// MaxJobsPerKey bounds the uploads and reviews one API key may have
	// queued or running (DefaultMaxJobsPerKey); more are refused with 429
	// (fairness.go).
	MaxJobsPerKey int
	// JobWorkers is the number of uploads, and separately of reviews, run
	// at once, shared fairly between keys (DefaultJobWorkers).
	JobWorkers int
	// JobCPUs bounds the files parsed and contracts reviewed at once by all
	// background jobs together (default: the number of CPUs); one key's
	// jobs take at most all but one of them (fairness.go).
	JobCPUs int
	// JobSlice is how long a job keeps its worker before giving it to a
	// waiting job of another key (jobs.DefaultSlice).
	JobSlice time.Duration

	// JobRetention is how long finished jobs (and whatever uploaded files
	// of theirs are left) are kept after they finished
	// (DefaultJobRetention); a negative value keeps them forever.
	JobRetention time.Duration
	// JobLease, on a cluster, is how long a job's heartbeat is trusted by
	// the other servers: a job whose server stopped beating for longer is
	// shown to them as interrupted (default jobs.DefaultLease).
	JobLease time.Duration
	// GCEvery, on a cluster, is how often the server removes the file parts
	// of commits cut short (DefaultGCEvery); negative: never.
	GCEvery time.Duration
	// Rate is the requests per second each API key may make on average
	// (per remote address in no-auth mode, and for requests without a
	// valid key); an ask counts as 5 requests and an upload as 10
	// (DefaultRate). A negative value disables rate limiting. /healthz and
	// /readyz are never limited.
	Rate float64
	// Burst is how many requests a key may make at once before Rate
	// applies (DefaultBurst).
	Burst float64
	// MaxConnsPerClient bounds the open connections from one remote
	// address (DefaultMaxConnsPerClient); MaxConns bounds all open
	// connections (DefaultMaxConns). Connections past either are closed
	// as soon as they are accepted. A negative value disables the bound.
	MaxConnsPerClient int
	MaxConns          int

	// Parse configures parsing of uploads (OCR, PDF engine). Its MaxBytes
	// is set from MaxFileBytes.
	Parse parse.Options
	// IngestWorkers is the number of files parsed at once per job
	// (default: the number of CPUs).
	IngestWorkers int
	// IngestMemory is the memory budget every upload job shares
	// (ingest.Budget; ingest.DefaultMemory when ≤ 0): documents past it
	// wait their turn, a document needing more than all of it fails alone.
	IngestMemory int64
	// IngestNice lowers the processor priority of the threads that read
	// and analyze uploaded files by this much (Linux niceness;
	// DefaultIngestNice when 0, none when negative), so that searches and
	// the machine's other programs come before a large upload.
	IngestNice int
	// Embedder, when set, embeds uploaded documents and questions for dense
	// retrieval.
	Embedder search.Embedder
	// Reranker, when set, reorders the best search hits.
	Reranker search.Reranker
	// Models are the agents' models; when none is configured, asks return
	// evidence reports.
	Models llm.Roles
	// External are the external tools the agents may use (none by default).
	External []tool.Tool
	// MaxTurns bounds the Interrogator's questions (agent.DefaultMaxTurns).
	MaxTurns int

	// Logger receives the access log and warnings (slog.Default()).
	Logger *slog.Logger
	// UI, when set, serves the web app at "/".
	UI http.Handler
	// MCP, when set (mcp.HTTPHandler), is mounted at "/mcp" behind the same
	// authentication; each request is bound to a collection with
	// mcp.WithCollection (see mountExtras).
	MCP http.Handler
	// OpenAtStart opens every collection in the background when the server
	// starts — its list of documents, its search index and its families
	// (opening.go) — so that the first requests do not wait for them.
	OpenAtStart bool
	// Collections, when set, is the collection service the API answers
	// from; give the MCP handler the same one, so the process keeps one
	// index per collection. The server does not close it. When nil the
	// server makes its own from Store, Embedder and Reranker, and closes it.
	Collections *collection.Service
}

// Server is the HTTP API over one store.
type Server struct {
	cfg Config
	st  *store.Store
	log *slog.Logger
	// state keeps reports, reviews and jobs: in the store's directory or a
	// cluster's shared records (state.go).
	state serverState
	jobs  *jobs.Manager
	// reviewJobs runs reviews apart from jobs (ingests), so a long review
	// never holds up an upload; the job routes look in both.
	reviewJobs *jobs.Manager
	coll       *collection.Service
	ownColl    bool       // coll was made by New: Close closes it
	opening    openings   // collections being opened at start (opening.go)
	famMu      sync.Mutex // guards famLocks
	famLocks   map[string]*sync.Mutex
	limiter    *limiter       // nil: no rate limiting
	models     *agent.Models  // nil: evidence reports
	asks       chan struct{}  // semaphore of running asks
	askRuns    askRuns        // asks that may ask back (askback.go)
	renders    chan struct{}  // semaphore of running page renders (pages.go)
	tables     chan struct{}  // semaphore of review tables being decoded (review.go)
	cpus       *jobs.Pool     // processor slots of background jobs (fairness.go)
	memory     *ingest.Budget // memory of the documents every upload job reads at once
	handler    http.Handler

	deletingMu sync.Mutex
	deleting   map[string]bool // collections being deleted (routes.go)

	serveLock  *os.File        // <store>/serve.lock, held while the server runs (servelock.go)
	streams    context.Context // cancelled when the server shuts down
	stopStream context.CancelFunc
	closeOnce  sync.Once
}

// New returns a Server over cfg.Store: it opens the job directory, resumes
// the jobs a previous run left unfinished and starts the job workers. Call
// Close (or ListenAndServe, which closes on return) to stop them.
func New(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("server: no store")
	}
	if cfg.Keys == nil && !cfg.NoAuth {
		return nil, errors.New("server: no keyring (give Keys, or NoAuth for local use)")
	}
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.NoAuth && !loopbackAddr(cfg.Addr) {
		return nil, fmt.Errorf("server: --no-auth is only allowed on a loopback address, not %q; create keys with \"pakton keys create\" instead", cfg.Addr)
	}
	if cfg.Shard != nil {
		if err := cfg.Shard.validate(); err != nil {
			return nil, err
		}
		if cfg.Store.Blobs() == nil {
			return nil, errors.New("server: a sharded server needs a cluster store that shares index segments (weaviate://…)")
		}
	}
	// Unset (zero or negative) limits take their defaults.
	cfg.MaxFileBytes = positiveOr(cfg.MaxFileBytes, DefaultMaxFileBytes)
	cfg.MaxFiles = positiveOr(cfg.MaxFiles, DefaultMaxFiles)
	cfg.MaxRequestBytes = positiveOr(cfg.MaxRequestBytes, DefaultMaxRequestBytes)
	cfg.MaxJSONBytes = positiveOr(cfg.MaxJSONBytes, DefaultMaxJSONBytes)
	cfg.MaxAsks = positiveOr(cfg.MaxAsks, DefaultMaxAsks)
	cfg.AskTimeout = positiveOr(cfg.AskTimeout, DefaultAskTimeout)
	cfg.AskAnswerWait = positiveOr(cfg.AskAnswerWait, DefaultAskAnswerWait)
	cfg.AskQueueWait = positiveOr(cfg.AskQueueWait, DefaultAskQueueWait)
	cfg.MaxJobsPerKey = positiveOr(cfg.MaxJobsPerKey, DefaultMaxJobsPerKey)
	cfg.JobWorkers = positiveOr(cfg.JobWorkers, DefaultJobWorkers)
	cfg.JobCPUs = positiveOr(cfg.JobCPUs, runtime.NumCPU())
	cfg.IngestNice = cmp.Or(cfg.IngestNice, DefaultIngestNice)
	cfg.MaxReviewCells = positiveOr(cfg.MaxReviewCells, DefaultMaxReviewCells)
	cfg.Burst = positiveOr(cfg.Burst, DefaultBurst)
	cfg.MaxTurns = positiveOr(cfg.MaxTurns, agent.DefaultMaxTurns)
	// Here zero is unset and a negative value means none (kept forever, no limit).
	cfg.JobRetention = cmp.Or(cfg.JobRetention, DefaultJobRetention)
	cfg.Rate = cmp.Or(cfg.Rate, DefaultRate)
	cfg.MaxConnsPerClient = cmp.Or(cfg.MaxConnsPerClient, DefaultMaxConnsPerClient)
	cfg.MaxConns = cmp.Or(cfg.MaxConns, DefaultMaxConns)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg.Parse.MaxBytes = cfg.MaxFileBytes
	s := &Server{cfg: cfg, st: cfg.Store, log: cfg.Logger, asks: make(chan struct{}, cfg.MaxAsks),
		renders: make(chan struct{}, maxRenders), tables: make(chan struct{}, maxTableReads), cpus: jobs.NewPool(cfg.JobCPUs, cfg.JobCPUs-1),
		memory: ingest.NewBudget(cfg.IngestMemory)}
	s.state = newState(s.st, s.log, s.scrubPaths)
	s.coll = cfg.Collections
	if s.coll == nil {
		opt := collection.Options{Models: collection.Models{Search: search.Models{Embedder: cfg.Embedder, Reranker: cfg.Reranker}}, Log: s.log}
		if cfg.Shard != nil {
			opt.Shard, opt.Sharding = cfg.Shard.LoadShard(), cfg.Shard.Sharding()
		}
		s.coll = collection.New(cfg.Store, opt)
		s.ownColl = true
	}
	// Index maintenance shares the processor slots of background jobs,
	// as work of the collection's tenant (fairness.go).
	s.coll.SetMaintenanceGate(func(ctx context.Context, c string) (func(), error) {
		return s.acquireCPU(jobs.WithTenant(ctx, jobs.TenantOf(c, "")))
	})
	if cfg.Rate > 0 {
		s.limiter = newLimiter(cfg.Rate, cfg.Burst)
	}
	if cfg.Models.Configured() {
		m, err := agent.ModelsFrom(cfg.Models)
		if err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
		s.models = &m
	}
	s.streams, s.stopStream = context.WithCancel(context.Background())
	lock, err := lockServe(s.st.Dir())
	if err != nil {
		return nil, err
	}
	s.serveLock = lock
	ingestOpt := jobs.Options{Logger: s.log, Finished: s.jobFinished, Removing: s.removeJobFiles, Retention: max(cfg.JobRetention, 0), Workers: cfg.JobWorkers, Slice: cfg.JobSlice}
	reviewOpt := jobs.Options{Logger: s.log, Retention: max(cfg.JobRetention, 0), Workers: cfg.JobWorkers, Slice: cfg.JobSlice}
	if err := s.state.shareJobs(&ingestOpt, &reviewOpt, cfg.JobLease); err != nil {
		lock.Close()
		return nil, err
	}
	s.jobs, err = jobs.Open(ctx, filepath.Join(s.st.Dir(), "jobs"), ingestOpt)
	if err != nil {
		lock.Close()
		return nil, fmt.Errorf("server: %w", err)
	}
	s.jobs.Handle(kindIngest, s.state.jobFunc(s.runIngest))
	s.reviewJobs, err = jobs.Open(ctx, filepath.Join(s.st.Dir(), "review-jobs"), reviewOpt)
	if err != nil {
		s.jobs.Close()
		lock.Close()
		return nil, fmt.Errorf("server: %w", err)
	}
	s.reviewJobs.Handle(kindReview, s.state.jobFunc(s.runReviewJob))
	s.reviewJobs.Start()
	s.removeOrphanUploads()
	s.jobs.Start()
	s.state.start(ctx, s.streams.Done(), cfg.GCEvery)
	s.handler = s.routes()
	if cfg.OpenAtStart {
		s.openAtStart(s.streams)
	}
	return s, nil
}

// Handler returns the server's HTTP handler: the API, health checks, and the
// web app and MCP endpoint when configured.
func (s *Server) Handler() http.Handler { return s.handler }

// Jobs returns the server's job manager, for features that add job kinds.
func (s *Server) Jobs() *jobs.Manager { return s.jobs }

// ReviewJobs returns the job manager that runs reviews.
func (s *Server) ReviewJobs() *jobs.Manager { return s.reviewJobs }

// Close cancels the streams in progress and stops the job workers; running
// jobs stay unfinished on disk and resume on the next start. It does not
// close the store.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.stopStream()
		s.opening.wg.Wait()
		s.jobs.Close()
		s.reviewJobs.Close()
		if s.ownColl {
			s.coll.Close()
		}
		s.serveLock.Close() // releases the flock
	})
	return nil
}

// ListenAndServe listens on Config.Addr and serves until ctx is cancelled,
// then shuts down gracefully: it stops accepting connections, ends the
// answer streams in progress, waits up to 10 s for requests to finish, and
// closes the server.
func (s *Server) ListenAndServe(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	return s.Serve(ctx, ln)
}

// Serve is ListenAndServe on a listener the caller opened.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	defer s.Close()
	if s.cfg.NoAuth && !loopbackAddr(ln.Addr().String()) {
		ln.Close()
		return fmt.Errorf("server: --no-auth is only allowed on a loopback address, not %s", ln.Addr())
	}
	var lastWarn atomic.Int64
	ln = newConnLimitListener(ln, s.cfg.MaxConnsPerClient, s.cfg.MaxConns, func(client string) {
		// At most one warning every 10 s: a flood must not flood the log.
		if now := time.Now().UnixNano(); now-lastWarn.Load() > int64(10*time.Second) {
			lastWarn.Store(now)
			s.log.Warn("connections refused: too many open connections", "client", client,
				"max_per_client", s.cfg.MaxConnsPerClient, "max", s.cfg.MaxConns)
		}
	})
	srv := s.HTTPServer()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("server: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := srv.Shutdown(shut)
	if errors.Is(err, context.DeadlineExceeded) {
		srv.Close()
	}
	if e := <-errc; e != nil && !errors.Is(e, http.ErrServerClosed) {
		return fmt.Errorf("server: %w", e)
	}
	return err
}

// HTTPServer returns an http.Server for the handler with the server's
// timeouts. Uploads and answer streams extend their own deadlines.
func (s *Server) HTTPServer() *http.Server {
	srv := &http.Server{
		Addr:              s.cfg.Addr,
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	srv.RegisterOnShutdown(s.stopStream)
	return srv
}

// loopbackAddr reports whether a host:port names a loopback interface.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	return loopbackHost(host)
}

func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// minFreeBytes is the free space below which the server is not ready: an
// upload or a report would fail on a full disk.
const minFreeBytes = 64 << 20

// errDiskFull is the reason /readyz gives for a full disk.
var errDiskFull = errors.New("the store's disk is full")

// freeSpace returns the bytes available in a directory's file system
// (statfs; -1 where unknown). A variable so tests can fill the disk.
var freeSpace = diskFree

// ready reports whether the store is open, writable and has room.
func (s *Server) ready(ctx context.Context) error {
	if err := s.st.Ping(ctx); err != nil {
		return err
	}
	if _, err := s.st.Collections(ctx); err != nil {
		return err
	}
	if free := freeSpace(s.st.Dir()); free >= 0 && free < minFreeBytes {
		return fmt.Errorf("%w (%d MiB free, want at least %d MiB)", errDiskFull, free>>20, minFreeBytes>>20)
	}
	f, err := os.CreateTemp(s.st.Dir(), ".tmp-readyz-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// positiveOr returns v, or def when v is zero or negative (unset).
func positiveOr[T int | int64 | float64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
