// Package ollamatest runs a real Ollama server for tests, with models the
// tests make themselves: a tiny chat model and a tiny embedding model with
// random weights, written as GGUF files by this package and imported with
// `ollama create`. No weights are downloaded.
//
// It is test-only code, like internal/llm/llmtest: import it from _test.go
// files only. The tests that use it are named …Ollama… and run only with
// PAKTON_OLLAMA=1 (`.ci/run` sets it):
//
//	PAKTON_OLLAMA=1 go test ./... -run Ollama
//
// The server binary is found as $PAKTON_OLLAMA_BIN, `ollama` on PATH or
// $(go env GOPATH)/bin/ollama; `bash scripts/ollama/build.sh` builds it
// from the Go module proxy. With PAKTON_OLLAMA=1 and no binary a test
// fails naming that command; without PAKTON_OLLAMA it skips.
//
// Random weights make meaningless text, and that is the point: the models
// exercise the wire — structured output through Ollama's grammar-constrained
// decoding, streaming, tool declarations, token accounting, embeddings,
// context limits, errors — and nothing they say can be right by design, so
// every answer pakton shows from them must come out unverified. The chat
// model's weights hold one fixed preference (see logitBias) that makes its
// replies short; it is still untrained.
package ollamatest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// EnvVar enables the real-server tests.
const EnvVar = "PAKTON_OLLAMA"

// BuildCommand is what builds the server binary.
const BuildCommand = "bash scripts/ollama/build.sh"

// Enabled reports whether the real-server tests run.
func Enabled() bool { return os.Getenv(EnvVar) != "" }

// Options shape the server and its models.
type Options struct {
	// NumCtx is the chat model's num_ctx (its Modelfile PARAMETER): the
	// context window Ollama gives it. 0 leaves Ollama's default.
	NumCtx int
	// Chat shapes the chat model (default: qwen3 architecture).
	Chat ChatSpec
	// Embed shapes the embedding model.
	Embed EmbedSpec
	// Env adds variables to the server's environment (OLLAMA_…).
	Env []string
}

// modelParams are the PARAMETERs every model gets: one thread. ggml's
// worker threads wait for each other by spinning; on a machine whose cores
// are busy with other work (a CI runner, a laptop building code) a step
// then waits for descheduled threads, and the tiny models ran 30 to 100
// times slower with Ollama's default (one thread per core) than with one:
// 64 embeddings took 12 s instead of 0.12 s, a constrained-decoding token
// 100 ms instead of 0.3 ms (2 cores at load 24).
//
// And a fixed seed, so that a run can be replayed: Ollama then samples the
// same reply to the same prompt.
var modelParams = map[string]string{"num_thread": "1", "seed": "7"}

func withParams(extra map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range modelParams {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// Server is a running `ollama serve` on a loopback port with the tiny
// models created.
type Server struct {
	// URL is the server's root, e.g. http://127.0.0.1:40123; the
	// OpenAI-compatible API is URL+"/v1".
	URL string
	// ChatModel and EmbedModel are the names the models were created as.
	ChatModel, EmbedModel string
	// Version is the server's own version string.
	Version string

	bin, dir string
	env      []string
	cmd      *exec.Cmd
	done     chan struct{}
	mu       sync.Mutex
	stopped  bool
}

// Binary returns the Ollama binary the tests use, or an error naming the
// build command.
func Binary() (string, error) {
	if b := os.Getenv("PAKTON_OLLAMA_BIN"); b != "" {
		if _, err := exec.LookPath(b); err != nil {
			return "", fmt.Errorf("PAKTON_OLLAMA_BIN=%s: %w", b, err)
		}
		return b, nil
	}
	if b, err := exec.LookPath("ollama"); err == nil {
		return b, nil
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
			gopath = strings.TrimSpace(string(out))
		}
	}
	if gopath != "" {
		b := filepath.Join(strings.Split(gopath, string(os.PathListSeparator))[0], "bin", "ollama")
		if st, err := os.Stat(b); err == nil && !st.IsDir() {
			return b, nil
		}
	}
	return "", fmt.Errorf("no ollama binary (PAKTON_OLLAMA_BIN, PATH, $(go env GOPATH)/bin): build it with `%s`", BuildCommand)
}

// Start starts `ollama serve` for t, creates the tiny models and stops the
// server when t ends. It skips t unless PAKTON_OLLAMA is set.
func Start(t testing.TB, opt Options) *Server {
	t.Helper()
	if !Enabled() {
		t.Skipf("real Ollama server tests need %s=1 (and `%s`)", EnvVar, BuildCommand)
	}
	bin, err := Binary()
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{bin: bin, dir: t.TempDir(), ChatModel: "pakton-tiny-chat", EmbedModel: "pakton-tiny-embed"}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			t.Logf("ollama serve log (tail):\n%s", s.LogTail(60))
		}
	})
	if err := s.start(opt.Env); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.createModels(ctx, opt); err != nil {
		t.Fatal(err)
	}
	return s
}

// start runs `ollama serve` on a free loopback port and waits until it
// answers.
func (s *Server) start(extraEnv []string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	ln.Close()
	s.URL = "http://" + addr
	home := filepath.Join(s.dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	s.env = append(os.Environ(),
		"HOME="+home,
		"OLLAMA_HOST="+addr,
		"OLLAMA_MODELS="+filepath.Join(s.dir, "models"),
		"OLLAMA_NOPRUNE=1",
		"OLLAMA_KEEP_ALIVE=30m",
		"OLLAMA_NO_CLOUD=1",
	)
	s.env = append(s.env, extraEnv...)
	logf, err := os.Create(filepath.Join(s.dir, "serve.log"))
	if err != nil {
		return err
	}
	cmd := exec.Command(s.bin, "serve")
	cmd.Env = s.env
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own process group: Kill and Stop reach the model runner the
	// server starts, too. Should the test binary die without cleaning up
	// (a panic, a -timeout), the kernel sends the server SIGTERM, on which
	// Ollama stops its runners and exits.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start %s serve: %w", s.bin, err)
	}
	s.cmd = cmd
	s.done = make(chan struct{})
	go func() { cmd.Wait(); logf.Close(); close(s.done) }()

	deadline := time.Now().Add(60 * time.Second)
	for {
		v, err := s.version()
		if err == nil {
			s.Version = v
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("ollama serve exited at start: %s", s.LogTail(20))
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("ollama serve did not answer on %s within 60s: %v", s.URL, err)
		}
	}
}

func (s *Server) version() (string, error) {
	resp, err := http.Get(s.URL + "/api/version")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var v struct {
		Version string `json:"version"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return "", err
	}
	return v.Version, nil
}

// createModels writes the GGUF files and imports them with `ollama create`.
func (s *Server) createModels(ctx context.Context, opt Options) error {
	chat, err := ChatModel(opt.Chat)
	if err != nil {
		return err
	}
	embed, err := EmbedModel(opt.Embed)
	if err != nil {
		return err
	}
	params := withParams(nil)
	if opt.NumCtx > 0 {
		params["num_ctx"] = strconv.Itoa(opt.NumCtx)
	}
	for _, m := range []struct {
		name, file, template string
		gguf                 *GGUF
		params               map[string]string
		stops                []string
	}{
		{s.ChatModel, "chat.gguf", chatTemplate, chat, params, []string{tokImEnd, tokImStart}},
		{s.EmbedModel, "embed.gguf", "", embed, withParams(nil), nil},
	} {
		path := filepath.Join(s.dir, m.file)
		if err := m.gguf.WriteFile(path); err != nil {
			return err
		}
		mf := filepath.Join(s.dir, m.name+".Modelfile")
		if err := os.WriteFile(mf, []byte(modelfile(path, m.template, m.params, m.stops)), 0o644); err != nil {
			return err
		}
		if out, err := s.Command(ctx, "create", m.name, "-f", mf); err != nil {
			return fmt.Errorf("ollama create %s: %w\n%s", m.name, err, out)
		}
	}
	return nil
}

// Command runs the ollama CLI against this server.
func (s *Server) Command(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, s.bin, args...)
	cmd.Env = s.env
	cmd.Dir = s.dir
	return cmd.CombinedOutput()
}

// Create imports another variant of the chat model, e.g. with a different
// num_ctx, and returns its name.
func (s *Server) Create(ctx context.Context, name string, spec ChatSpec, params map[string]string) error {
	g, err := ChatModel(spec)
	if err != nil {
		return err
	}
	path := filepath.Join(s.dir, name+".gguf")
	if err := g.WriteFile(path); err != nil {
		return err
	}
	mf := filepath.Join(s.dir, name+".Modelfile")
	if err := os.WriteFile(mf, []byte(modelfile(path, chatTemplate, withParams(params), []string{tokImEnd, tokImStart})), 0o644); err != nil {
		return err
	}
	if out, err := s.Command(ctx, "create", name, "-f", mf); err != nil {
		return fmt.Errorf("ollama create %s: %w\n%s", name, err, out)
	}
	return nil
}

// Kill ends the server and its model runner at once (SIGKILL), as a crash
// would, and waits for the server process to go.
func (s *Server) Kill() {
	s.signal(syscall.SIGKILL)
	s.wait(10 * time.Second)
}

// Stop ends the server and its runner: SIGTERM, then SIGKILL after 10 s.
// It is safe to call more than once.
func (s *Server) Stop() {
	s.mu.Lock()
	if s.stopped || s.cmd == nil {
		s.mu.Unlock()
		return
	}
	s.stopped = true
	s.mu.Unlock()
	s.signal(syscall.SIGTERM)
	if !s.wait(10 * time.Second) {
		s.signal(syscall.SIGKILL)
		s.wait(10 * time.Second)
	}
	// The runner is in the same group; make sure nothing of it is left.
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
}

func (s *Server) signal(sig syscall.Signal) {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, sig)
}

func (s *Server) wait(d time.Duration) bool {
	select {
	case <-s.done:
		return true
	case <-time.After(d):
		return false
	}
}

// LogTail returns the last n lines of the server's log.
func (s *Server) LogTail(n int) string {
	b, err := os.ReadFile(filepath.Join(s.dir, "serve.log"))
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Log returns the server's whole log.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "serve.log"))
	return string(b)
}

// Post sends a JSON request to the server's native API (…/api/…) and
// decodes the reply into out.
func (s *Server) Post(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: %s: %s", path, resp.Status, bytes.TrimSpace(b))
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(b, out)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Requests counts the requests to path (e.g. "/v1/chat/completions") the
// server has logged so far: Ollama logs one line per request.
func (s *Server) Requests(path string) int {
	n := 0
	for _, line := range strings.Split(s.Log(), "\n") {
		if strings.Contains(line, "[GIN]") && strings.Contains(line, `"`+path+`"`) {
			n++
		}
	}
	return n
}
