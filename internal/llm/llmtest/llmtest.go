// Package llmtest is a scripted model server for tests: an httptest.Server
// that speaks the real OpenAI wire protocol (POST /v1/chat/completions,
// plain and streamed as server-sent events, and POST /v1/embeddings) and
// replies with the turns of a script written by the test.
//
// It is test-only code: import it from _test.go files only, never from
// product code. pakton never fakes a model; this package stands in for a
// model server so that every client and agent path can be driven through
// the same HTTP wire format a real server uses.
//
// A script is an ordered list of turns. Each request is answered by the
// first unused turn whose Match predicate accepts it (nil matches any
// request to the turn's endpoint), so a script reads in order yet tolerates
// concurrent callers. A turn replies with text, a JSON value, tool calls, an
// HTTP error with headers, malformed JSON, a dropped connection, or
// embeddings, optionally after a delay. A request that no turn matches fails
// the test with a message naming the request; turns left unused when the
// test ends fail it too, unless marked Optional.
//
// One file of ~740 lines, on purpose: it is one fake server (the script,
// its matcher and the wire formats it answers share the server's state),
// test-only, and read as a whole by whoever writes a script.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// Endpoints a turn can answer.
const (
	Chat       = "chat"       // POST …/chat/completions (the default)
	Embeddings = "embeddings" // POST …/embeddings
)

// ToolCall is a tool call a scripted turn makes.
type ToolCall struct {
	ID        string // "" means "call_<n>"
	Name      string
	Arguments string // JSON text
}

// Usage overrides the token counts a turn reports.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// Turn is one scripted reply. Set one kind of reply: Text (and/or
// ToolCalls), JSON, Status, RawBody, Drop or Embed.
type Turn struct {
	// Name identifies the turn in failure messages.
	Name string
	// Endpoint is Chat ("" too) or Embeddings.
	Endpoint string
	// Match selects the requests this turn answers; nil accepts any.
	Match func(*Request) bool
	// Times is how many requests the turn answers: 0 means once, negative
	// means without limit.
	Times int
	// Optional turns may be left unused without failing the test.
	Optional bool

	// Delay waits before replying (the request's cancellation ends it
	// early), e.g. to make the client time out.
	Delay time.Duration

	// Text is the assistant's reply content (may be malformed JSON on
	// purpose, to exercise repair).
	Text string
	// JSON, when non-nil, is marshalled and used as the content.
	JSON any
	// ToolCalls are returned as the message's tool_calls.
	ToolCalls []ToolCall
	// FinishReason defaults to "tool_calls" with tool calls, else "stop".
	FinishReason string
	// Usage overrides the token counts (default: a quarter of the
	// characters of the request's messages and tools — about what English
	// BPE vocabularies make — and the words of the reply).
	Usage *Usage

	// Status, when non-zero, replies with this HTTP status, Header, and an
	// OpenAI-style error body carrying ErrorMessage.
	Status       int
	Header       http.Header
	ErrorMessage string

	// RawBody is sent verbatim with status 200 (e.g. malformed wire JSON).
	RawBody string
	// Drop closes the connection without replying.
	Drop bool

	// Streaming only: ChunkRunes splits text into chunks of this many runes
	// (default 8); ChunkDelay waits between chunks; DropAfterChunks, when
	// positive, drops the connection after that many chunks.
	ChunkRunes      int
	ChunkDelay      time.Duration
	DropAfterChunks int

	// Embed returns the vector for one input (Embeddings turns).
	Embed func(input string) []float32
}

// Message is one chat message as received.
type Message struct {
	Role       string
	Content    string
	ToolCallID string
	ToolCalls  []ToolCall
}

// Request is one request the server received, decoded.
type Request struct {
	Method, Path string
	Query        map[string][]string
	Header       http.Header
	Body         []byte // raw JSON

	Model          string
	Messages       []Message
	Tools          []string        // function names offered
	ToolSchemas    json.RawMessage // the raw tools array
	ResponseFormat json.RawMessage // raw response_format, nil if absent
	Stream         bool
	IncludeUsage   bool
	Temperature    *float64
	MaxTokens      int
	Input          []string // embeddings input
}

// System returns the system messages' content, joined by newlines.
func (r *Request) System() string { return r.join(func(m Message) bool { return m.Role == "system" }) }

// Text returns every message's content, joined by newlines.
func (r *Request) Text() string { return r.join(func(Message) bool { return true }) }

// LastUser returns the content of the last user message.
func (r *Request) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// HasTool reports whether the request offers a tool called name.
func (r *Request) HasTool(name string) bool {
	for _, t := range r.Tools {
		if t == name {
			return true
		}
	}
	return false
}

// ResponseFormatType returns response_format.type ("" when absent).
func (r *Request) ResponseFormatType() string {
	var rf struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(r.ResponseFormat, &rf)
	return rf.Type
}

func (r *Request) join(keep func(Message) bool) string {
	var parts []string
	for _, m := range r.Messages {
		if keep(m) {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// Contains matches requests whose messages contain s.
func Contains(s string) func(*Request) bool {
	return func(r *Request) bool { return strings.Contains(r.Text(), s) }
}

// SystemContains matches requests whose system messages contain s (e.g. a
// role's prompt marker).
func SystemContains(s string) func(*Request) bool {
	return func(r *Request) bool { return strings.Contains(r.System(), s) }
}

// HasTool matches requests offering a tool called name.
func HasTool(name string) func(*Request) bool {
	return func(r *Request) bool { return r.HasTool(name) }
}

// LastIsTool matches requests whose last message is a tool result: the
// turn after the model's tool calls.
func LastIsTool() func(*Request) bool {
	return func(r *Request) bool { return len(r.Messages) > 0 && r.Messages[len(r.Messages)-1].Role == "tool" }
}

// All matches requests every predicate accepts.
func All(preds ...func(*Request) bool) func(*Request) bool {
	return func(r *Request) bool {
		for _, p := range preds {
			if !p(r) {
				return false
			}
		}
		return true
	}
}

// Server is a running scripted server.
type Server struct {
	*httptest.Server
	t    testing.TB
	done chan struct{}

	mu     sync.Mutex
	turns  []*turnState
	reqs   []*Request
	calls  int // tool call ids handed out
	window int // context length GET /api/ps reports; 0: no such endpoint
}

// SetContextWindow makes the server answer GET /api/ps as Ollama does,
// listing every model requested so far as loaded with a context window of
// n tokens. Without it /api/ps is not found, as on any server but Ollama.
func (s *Server) SetContextWindow(n int) {
	s.mu.Lock()
	s.window = n
	s.mu.Unlock()
}

// ps answers GET /api/ps.
func (s *Server) ps(w http.ResponseWriter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.window == 0 {
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	type model struct {
		Name          string `json:"name"`
		Model         string `json:"model"`
		ContextLength int    `json:"context_length"`
	}
	models := []model{}
	seen := map[string]bool{}
	for _, r := range s.reqs {
		if !seen[r.Model] {
			seen[r.Model] = true
			models = append(models, model{r.Model, r.Model, s.window})
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"models": models})
}

type turnState struct {
	Turn
	used int
}

// NewServer starts a server playing script and stops it when the test ends.
// Its URL + "/v1" is the base URL to configure a client with.
func NewServer(t testing.TB, script ...Turn) *Server {
	t.Helper()
	s := &Server{t: t, done: make(chan struct{})}
	for _, turn := range script {
		s.turns = append(s.turns, &turnState{Turn: turn})
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		close(s.done)
		s.Server.CloseClientConnections()
		s.Server.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, ts := range s.turns {
			if ts.used == 0 && !ts.Optional {
				t.Errorf("llmtest: scripted turn %d %q was never used", i, ts.Name)
			}
		}
	})
	return s
}

// BaseURL returns the API root to configure clients with (URL + "/v1").
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Add appends turns to the script.
func (s *Server) Add(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, turn := range turns {
		s.turns = append(s.turns, &turnState{Turn: turn})
	}
}

// Requests returns the requests received so far, in arrival order.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.reqs...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	endpoint := ""
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		endpoint = Chat
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/embeddings"):
		endpoint = Embeddings
	case r.Method == http.MethodGet && r.URL.Path == "/api/ps":
		// Ollama's list of loaded models, which clients may ask for the
		// context window (llm.ErrContextOverflow).
		s.ps(w)
		return
	default:
		s.t.Errorf("llmtest: unexpected %s %s", r.Method, r.URL.Path)
		http.Error(w, `{"error":{"message":"llmtest: no such endpoint"}}`, http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req, err := decode(r, body)
	if err != nil {
		s.t.Errorf("llmtest: %s %s: request body is not valid: %v\n%s", r.Method, r.URL.Path, err, body)
		writeError(w, http.StatusBadRequest, nil, "llmtest: invalid request body: "+err.Error())
		return
	}

	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	n := len(s.reqs)
	var turn *Turn
	for _, ts := range s.turns {
		te := ts.Endpoint
		if te == "" {
			te = Chat
		}
		if te != endpoint || (ts.Times >= 0 && ts.used >= max(ts.Times, 1)) {
			continue
		}
		if ts.Match != nil && !ts.Match(req) {
			continue
		}
		ts.used++
		t := ts.Turn
		// Each request gets its own copy: default tool-call ids are filled in below.
		t.ToolCalls = append([]ToolCall(nil), ts.ToolCalls...)
		turn = &t
		break
	}
	var remaining []string
	if turn == nil {
		for i, ts := range s.turns {
			if ts.Times < 0 || ts.used < max(ts.Times, 1) {
				remaining = append(remaining, fmt.Sprintf("%d %q", i, ts.Name))
			}
		}
	}
	calls := s.calls
	if turn != nil {
		s.calls += len(turn.ToolCalls)
	}
	s.mu.Unlock()

	if turn == nil {
		s.t.Errorf("llmtest: request %d (%s, model %q, last user message %q, tools %v) matched no scripted turn; unused turns: %v",
			n, r.URL.Path, req.Model, snippet(req.LastUser()), req.Tools, remaining)
		writeError(w, http.StatusBadRequest, nil, "llmtest: no scripted turn matched this request")
		return
	}

	if turn.Delay > 0 {
		timer := time.NewTimer(turn.Delay)
		select {
		case <-timer.C:
		case <-r.Context().Done():
			timer.Stop()
			return
		case <-s.done:
			timer.Stop()
			return
		}
	}
	switch {
	case turn.Drop:
		drop(w)
	case turn.Status != 0:
		writeError(w, turn.Status, turn.Header, turn.ErrorMessage)
	case turn.RawBody != "":
		for k, v := range turn.Header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, turn.RawBody)
	case endpoint == Embeddings:
		s.embeddings(w, req, turn)
	default:
		for i := range turn.ToolCalls {
			if turn.ToolCalls[i].ID == "" {
				turn.ToolCalls[i].ID = fmt.Sprintf("call_%d", calls+i+1)
			}
		}
		content := turn.Text
		if turn.JSON != nil {
			b, err := json.Marshal(turn.JSON)
			if err != nil {
				s.t.Errorf("llmtest: turn %q: marshal JSON reply: %v", turn.Name, err)
			}
			content = string(b)
		}
		if req.Stream {
			s.stream(w, r, req, turn, content, n)
		} else {
			writeJSON(w, completion(req, turn, content, n))
		}
	}
}

// decode reads a request body in the OpenAI wire format.
func decode(r *http.Request, body []byte) (*Request, error) {
	var wire struct {
		Model    string `json:"model"`
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []wireToolCall  `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Type     string `json:"type"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
		ResponseFormat json.RawMessage `json:"response_format"`
		Stream         bool            `json:"stream"`
		StreamOptions  struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		Temperature         *float64        `json:"temperature"`
		MaxTokens           int             `json:"max_tokens"`
		MaxCompletionTokens int             `json:"max_completion_tokens"`
		Input               json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &wire); err != nil {
		return nil, err
	}
	req := &Request{
		Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), Body: body,
		Model: wire.Model, ResponseFormat: wire.ResponseFormat, Stream: wire.Stream,
		IncludeUsage: wire.StreamOptions.IncludeUsage, Temperature: wire.Temperature,
		MaxTokens: max(wire.MaxTokens, wire.MaxCompletionTokens),
	}
	var raw struct {
		Tools json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(body, &raw)
	req.ToolSchemas = raw.Tools
	for _, t := range wire.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
	}
	for i, m := range wire.Messages {
		content, err := contentText(m.Content)
		if err != nil {
			return nil, fmt.Errorf("message %d content: %w", i, err)
		}
		msg := Message{Role: m.Role, Content: content, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		req.Messages = append(req.Messages, msg)
	}
	if len(wire.Input) > 0 {
		var one string
		if json.Unmarshal(wire.Input, &one) == nil {
			req.Input = []string{one}
		} else if err := json.Unmarshal(wire.Input, &req.Input); err != nil {
			return nil, fmt.Errorf("input: %w", err)
		}
	}
	return req, nil
}

// contentText reads a message content given as a string, null, or an array
// of {type: text, text} parts.
func contentText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

type wireToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

func usage(req *Request, turn *Turn, content string) wireUsage {
	if turn.Usage != nil {
		u := turn.Usage
		return wireUsage{u.PromptTokens, u.CompletionTokens, u.PromptTokens + u.CompletionTokens}
	}
	p := (utf8.RuneCountInString(req.Text()) + len(req.ToolSchemas) + 3) / 4
	c := len(strings.Fields(content))
	for _, tc := range turn.ToolCalls {
		c += 1 + len(strings.Fields(tc.Arguments))
	}
	return wireUsage{p, c, p + c}
}

func finishReason(turn *Turn) string {
	switch {
	case turn.FinishReason != "":
		return turn.FinishReason
	case len(turn.ToolCalls) > 0:
		return "tool_calls"
	default:
		return "stop"
	}
}

func completion(req *Request, turn *Turn, content string, n int) map[string]any {
	msg := map[string]any{"role": "assistant", "content": content}
	if content == "" && len(turn.ToolCalls) > 0 {
		msg["content"] = nil
	}
	if len(turn.ToolCalls) > 0 {
		var calls []wireToolCall
		for _, tc := range turn.ToolCalls {
			w := wireToolCall{ID: tc.ID, Type: "function"}
			w.Function.Name, w.Function.Arguments = tc.Name, tc.Arguments
			calls = append(calls, w)
		}
		msg["tool_calls"] = calls
	}
	return map[string]any{
		"id":      fmt.Sprintf("chatcmpl-llmtest-%d", n),
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   req.Model,
		"choices": []any{map[string]any{
			"index": 0, "message": msg, "finish_reason": finishReason(turn), "logprobs": nil,
		}},
		"usage": usage(req, turn, content),
	}
}

// stream writes the reply as server-sent chat.completion.chunk events.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, req *Request, turn *Turn, content string, n int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	id := fmt.Sprintf("chatcmpl-llmtest-%d", n)
	created := time.Now().Unix()
	sent := 0
	send := func(choices []any, usage any) bool {
		if turn.DropAfterChunks > 0 && sent == turn.DropAfterChunks {
			drop(w)
			return false
		}
		if sent > 0 && turn.ChunkDelay > 0 {
			timer := time.NewTimer(turn.ChunkDelay)
			select {
			case <-timer.C:
			case <-r.Context().Done():
				timer.Stop()
				return false
			case <-s.done:
				timer.Stop()
				return false
			}
		}
		chunk := map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"choices": choices, "usage": usage,
		}
		b, _ := json.Marshal(chunk)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		sent++
		return true
	}
	delta := func(d map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": d, "finish_reason": finish, "logprobs": nil}}
	}
	if !send(delta(map[string]any{"role": "assistant", "content": ""}, nil), nil) {
		return
	}
	size := turn.ChunkRunes
	if size <= 0 {
		size = 8
	}
	for _, piece := range split(content, size) {
		if !send(delta(map[string]any{"content": piece}, nil), nil) {
			return
		}
	}
	for i, tc := range turn.ToolCalls {
		first := wireToolCall{Index: &i, ID: tc.ID, Type: "function"}
		first.Function.Name = tc.Name
		if !send(delta(map[string]any{"tool_calls": []wireToolCall{first}}, nil), nil) {
			return
		}
		for _, piece := range split(tc.Arguments, size) {
			more := wireToolCall{Index: &i}
			more.Function.Arguments = piece
			if !send(delta(map[string]any{"tool_calls": []wireToolCall{more}}, nil), nil) {
				return
			}
		}
	}
	if !send(delta(map[string]any{}, finishReason(turn)), nil) {
		return
	}
	if req.IncludeUsage {
		if !send([]any{}, usage(req, turn, content)) {
			return
		}
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

func (s *Server) embeddings(w http.ResponseWriter, req *Request, turn *Turn) {
	if turn.Embed == nil {
		s.t.Errorf("llmtest: embeddings turn %q has no Embed function", turn.Name)
		writeError(w, http.StatusInternalServerError, nil, "llmtest: turn has no Embed")
		return
	}
	data := make([]any, 0, len(req.Input))
	words := 0
	for i, in := range req.Input {
		data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": turn.Embed(in)})
		words += len(strings.Fields(in))
	}
	writeJSON(w, map[string]any{
		"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": words, "total_tokens": words},
	})
}

// split cuts s into pieces of at most n runes.
func split(s string, n int) []string {
	var out []string
	r := []rune(s)
	for len(r) > 0 {
		k := min(n, len(r))
		out = append(out, string(r[:k]))
		r = r[k:]
	}
	return out
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, header http.Header, msg string) {
	for k, v := range header {
		w.Header()[k] = v
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": msg, "type": "llmtest_error", "param": nil, "code": nil,
	}})
}

// drop closes the connection without a (further) reply.
func drop(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("llmtest: connection cannot be dropped")
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	if buf != nil {
		_ = buf.Flush()
	}
	_ = conn.Close()
}

func snippet(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return s
}
