package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/pakton/pakton/internal/httpretry"
)

// StatusError reports a non-2xx reply from the model server; errors.As
// finds it in every error Complete returns for one. Its Message is the
// server's error message with the API key redacted.
type StatusError = httpretry.StatusError

// Client is a Chat backed by an OpenAI-compatible chat-completions server
// (Ollama, vLLM, llama.cpp server, LM Studio, OpenAI, Azure OpenAI). It is
// safe for concurrent use.
//
// Retries are pakton's own, not the SDK's (which is configured with zero
// retries): the SDK honours Retry-After too, but its backoff base is fixed
// at 0.5 s and it cannot retry a stream that broke before its first token.
// Here 429, 408, 5xx and connection errors are retried with exponential
// backoff and jitter (internal/httpretry's policy), a Retry-After is
// honoured, a stream that has already delivered text is never retried, and
// an attempt that hits Config.Timeout is not retried (a slow model stays
// slow).
type Client struct {
	cfg  Config
	svc  openai.ChatCompletionService
	host string // for errors: scheme://host of the server
	// window is the model's context length as the server reports it, or
	// windowUnknown / windowNone (window.go).
	window atomic.Int64
	// ratio is the largest characters-per-prompt-token the server counted
	// for a prompt that surely fit (float64 bits; window.go).
	ratio atomic.Uint64
}

// New returns a client for cfg. It does not contact the server.
func New(cfg Config) (*Client, error) {
	cfg.BaseURL = strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	cfg.Model = strings.TrimSpace(cfg.Model)
	if cfg.Model == "" {
		return nil, errors.New("llm: no model configured (set PAKTON_LLM_MODEL or --llm-model)")
	}
	if cfg.BaseURL == "" {
		return nil, errors.New("llm: no server configured (set PAKTON_LLM_URL or --llm-url, e.g. http://localhost:11434/v1)")
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("llm: base URL %q must be an http or https URL such as http://localhost:11434/v1", redactString(cfg.BaseURL, cfg.APIKey))
	}
	switch cfg.JSONMode {
	case "", JSONModeSchema, JSONModeObject, JSONModeNone:
	default:
		return nil, fmt.Errorf("llm: json mode %q: want %q, %q or %q", cfg.JSONMode, JSONModeSchema, JSONModeObject, JSONModeNone)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.RetryBaseDelay <= 0 {
		cfg.RetryBaseDelay = DefaultRetryBaseDelay
	}
	if cfg.RetryMaxDelay <= 0 {
		cfg.RetryMaxDelay = DefaultRetryMaxDelay
	}

	opts := []option.RequestOption{
		option.WithHTTPClient(&http.Client{}),
		option.WithMaxRetries(0),
	}
	if cfg.Azure {
		if cfg.APIVersion == "" {
			cfg.APIVersion = DefaultAzureAPIVersion
		}
		base := cfg.BaseURL
		if !strings.Contains(u.Path, "/openai/deployments/") {
			base += "/openai/deployments/" + url.PathEscape(cfg.Model)
		}
		opts = append(opts, option.WithBaseURL(base+"/"), option.WithQuery("api-version", cfg.APIVersion))
		if cfg.APIKey != "" {
			opts = append(opts, option.WithHeader("api-key", cfg.APIKey))
		}
	} else {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL+"/"))
		if cfg.APIKey != "" {
			opts = append(opts, option.WithAPIKey(cfg.APIKey))
		}
	}
	return &Client{
		cfg:  cfg,
		svc:  openai.NewChatCompletionService(opts...),
		host: u.Scheme + "://" + u.Host,
	}, nil
}

// Model implements Chat.
func (c *Client) Model() string { return c.cfg.Model }

// Complete implements Chat. With req.Stream set it streams, calling
// req.Stream with each text delta and assembling tool-call deltas into
// whole ToolCalls. When a stream fails after delivering text, Complete
// returns the partial Response along with the error.
func (c *Client) Complete(ctx context.Context, req Request) (*Response, error) {
	params, err := c.params(req)
	if err != nil {
		return nil, c.wrap(err)
	}
	for attempt := 0; ; attempt++ {
		resp, delivered, retryAfter, err := c.attempt(ctx, params, req)
		if err == nil {
			if err := c.checkWindow(ctx, req, resp); err != nil {
				return resp, c.wrap(err)
			}
			return resp, nil
		}
		if ctx.Err() != nil {
			return resp, c.wrap(fmt.Errorf("%w (during: %v)", context.Cause(ctx), err))
		}
		if delivered || !retryable(err) {
			return resp, c.wrap(err)
		}
		if attempt >= c.cfg.MaxRetries {
			if attempt > 0 {
				err = fmt.Errorf("giving up after %d attempts: %w", attempt+1, err)
			}
			return resp, c.wrap(err)
		}
		wait := httpretry.Backoff(attempt, c.cfg.RetryBaseDelay, c.cfg.RetryMaxDelay, retryAfter)
		if err := httpretry.PastDeadline(ctx, wait, attempt, err); err != nil {
			return resp, c.wrap(err)
		}
		if !httpretry.Sleep(ctx, wait) {
			return nil, c.wrap(fmt.Errorf("%w (waiting to retry after: %v)", context.Cause(ctx), err))
		}
	}
}

// attempt sends one request. It reports whether any text reached
// req.Stream, and the server's Retry-After on a failed status.
func (c *Client) attempt(ctx context.Context, params openai.ChatCompletionNewParams, req Request) (resp *Response, delivered bool, retryAfter time.Duration, err error) {
	actx, cancel := context.WithTimeoutCause(ctx, c.cfg.Timeout, errAttemptTimeout)
	defer cancel()
	if req.Stream != nil {
		resp, delivered, err = c.stream(actx, params, req.Stream)
	} else {
		var cc *openai.ChatCompletion
		cc, err = c.svc.New(actx, params)
		if err == nil {
			resp, err = fromCompletion(cc)
		}
	}
	if err == nil {
		return resp, delivered, 0, nil
	}
	if ctx.Err() == nil && context.Cause(actx) == errAttemptTimeout {
		return resp, delivered, 0, &timeoutError{after: c.cfg.Timeout}
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		se := &StatusError{StatusCode: apiErr.StatusCode, Message: apiErr.Message}
		if apiErr.Response != nil {
			if apiErr.Response.Body != nil {
				body, _ := io.ReadAll(io.LimitReader(apiErr.Response.Body, 1<<20))
				if m := httpretry.ServerMessage(body); m != "" {
					se.Message = m
				}
			}
			retryAfter = httpretry.ParseRetryAfter(apiErr.Response.Header.Get("Retry-After"), time.Now())
			if ms := apiErr.Response.Header.Get("Retry-After-Ms"); retryAfter == 0 && ms != "" {
				retryAfter = httpretry.ParseRetryAfter(ms, time.Now()) / 1000
			}
		}
		se.Message = redactString(se.Message, c.cfg.APIKey)
		return resp, delivered, retryAfter, se
	}
	return resp, delivered, 0, err
}

// errAttemptTimeout is the cancellation cause of an attempt that ran out of
// Config.Timeout.
var errAttemptTimeout = errors.New("model call timed out")

// timeoutError reports an attempt that ran longer than Config.Timeout. It
// unwraps to context.DeadlineExceeded.
type timeoutError struct{ after time.Duration }

func (e *timeoutError) Error() string {
	return fmt.Sprintf("no complete reply within the %v timeout (set PAKTON_LLM_TIMEOUT to allow longer)", e.after)
}
func (e *timeoutError) Unwrap() error { return context.DeadlineExceeded }

// retryable reports whether a failed attempt may succeed if sent again:
// retryable statuses and connection-level failures (refused, reset,
// dropped mid-reply). A timeout is not retried.
func retryable(err error) bool {
	var te *timeoutError
	if errors.As(err, &te) {
		return false
	}
	var se *StatusError
	if errors.As(err, &se) {
		return se.Retryable()
	}
	var ue *url.Error
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &ue) || errors.As(err, &ne) || errors.As(err, &oe) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, errEmptyStream)
}

// errEmptyStream reports a stream that ended before any chunk arrived.
var errEmptyStream = errors.New("stream ended before any chunk")

// stream runs one streaming attempt.
func (c *Client) stream(ctx context.Context, params openai.ChatCompletionNewParams, deliver func(string)) (*Response, bool, error) {
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	s := c.svc.NewStreaming(ctx, params)
	defer s.Close()
	var (
		text      strings.Builder
		calls     = map[int64]*ToolCall{}
		resp      = &Response{Message: Message{Role: RoleAssistant}}
		delivered bool
		chunks    int
	)
	finish := func() *Response {
		resp.Message.Content = text.String()
		idx := make([]int64, 0, len(calls))
		for i := range calls {
			idx = append(idx, i)
		}
		sort.Slice(idx, func(a, b int) bool { return idx[a] < idx[b] })
		resp.Message.ToolCalls = nil
		for _, i := range idx {
			resp.Message.ToolCalls = append(resp.Message.ToolCalls, *calls[i])
		}
		return resp
	}
	for s.Next() {
		chunks++
		ch := s.Current()
		if ch.JSON.Usage.Valid() {
			resp.Usage = Usage{PromptTokens: int(ch.Usage.PromptTokens), CompletionTokens: int(ch.Usage.CompletionTokens)}
		}
		for _, choice := range ch.Choices {
			if choice.Index != 0 {
				continue
			}
			if d := choice.Delta.Content; d != "" {
				text.WriteString(d)
				deliver(d)
				delivered = true
			}
			for _, tc := range choice.Delta.ToolCalls {
				call := calls[tc.Index]
				if call == nil {
					call = &ToolCall{}
					calls[tc.Index] = call
				}
				if tc.ID != "" {
					call.ID = tc.ID
				}
				if tc.Function.Name != "" {
					call.Name += tc.Function.Name
				}
				call.Arguments += tc.Function.Arguments
			}
			if choice.FinishReason != "" {
				resp.FinishReason = choice.FinishReason
			}
		}
	}
	if err := s.Err(); err != nil {
		if delivered {
			return finish(), true, fmt.Errorf("stream broke after partial reply: %w", err)
		}
		return nil, false, err
	}
	if chunks == 0 {
		return nil, false, errEmptyStream
	}
	return finish(), delivered, nil
}

// fromCompletion converts the SDK's reply.
func fromCompletion(cc *openai.ChatCompletion) (*Response, error) {
	if cc == nil || len(cc.Choices) == 0 {
		return nil, errors.New("reply has no choices")
	}
	ch := cc.Choices[0]
	m := Message{Role: RoleAssistant, Content: ch.Message.Content}
	for _, tc := range ch.Message.ToolCalls {
		fn := tc.AsFunction()
		m.ToolCalls = append(m.ToolCalls, ToolCall{ID: fn.ID, Name: fn.Function.Name, Arguments: fn.Function.Arguments})
	}
	return &Response{
		Message:      m,
		FinishReason: ch.FinishReason,
		Usage:        Usage{PromptTokens: int(cc.Usage.PromptTokens), CompletionTokens: int(cc.Usage.CompletionTokens)},
	}, nil
}

// params converts req to the SDK's request.
func (c *Client) params(req Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(c.cfg.Model)}
	msgs := req.Messages
	if req.Schema != nil {
		mode := c.cfg.JSONMode
		if mode == "" {
			mode = JSONModeSchema
		}
		if len(req.Schema.Schema) == 0 || !json.Valid(req.Schema.Schema) {
			return p, fmt.Errorf("schema %q is not valid JSON", req.Schema.Name)
		}
		switch mode {
		case JSONModeSchema:
			var schema any
			if err := json.Unmarshal(req.Schema.Schema, &schema); err != nil {
				return p, fmt.Errorf("schema %q: %w", req.Schema.Name, err)
			}
			p.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{
				JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
					Name:   schemaName(req.Schema.Name),
					Schema: schema,
					Strict: openai.Bool(req.Schema.Strict),
				},
			}
		case JSONModeObject, JSONModeNone:
			if mode == JSONModeObject {
				p.ResponseFormat.OfJSONObject = &shared.ResponseFormatJSONObjectParam{}
			}
			// The server cannot see the schema: state it in the prompt.
			msgs = append(append([]Message(nil), msgs...), Message{Role: RoleSystem,
				Content: "Reply with one JSON object only, no prose, matching this JSON schema:\n" + string(req.Schema.Schema)})
		}
	}
	for i, m := range msgs {
		switch m.Role {
		case RoleSystem:
			p.Messages = append(p.Messages, openai.SystemMessage(m.Content))
		case RoleUser:
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		case RoleAssistant:
			a := openai.ChatCompletionAssistantMessageParam{}
			if m.Content != "" || len(m.ToolCalls) == 0 {
				a.Content.OfString = openai.String(m.Content)
			}
			for _, tc := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID: tc.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{
							Name: tc.Name, Arguments: tc.Arguments,
						},
					},
				})
			}
			p.Messages = append(p.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case RoleTool:
			p.Messages = append(p.Messages, openai.ToolMessage(m.Content, m.ToolCallID))
		default:
			return p, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	for _, t := range req.Tools {
		fd := shared.FunctionDefinitionParam{Name: t.Name}
		if t.Description != "" {
			fd.Description = openai.String(t.Description)
		}
		if len(t.Parameters) > 0 {
			var params map[string]any
			if err := json.Unmarshal(t.Parameters, &params); err != nil {
				return p, fmt.Errorf("tool %s: parameters are not a JSON object: %w", t.Name, err)
			}
			fd.Parameters = params
		}
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(fd))
	}
	temp := req.Temperature
	if temp == nil {
		temp = c.cfg.Temperature
	}
	if temp != nil {
		p.Temperature = openai.Float(*temp)
	}
	if req.MaxTokens > 0 {
		p.MaxTokens = openai.Int(int64(req.MaxTokens))
	}
	return p, nil
}

// schemaName makes name acceptable as a response_format name
// (^[a-zA-Z0-9_-]{1,64}$).
func schemaName(name string) string {
	b := []byte(name)
	for i, ch := range b {
		ok := ch == '_' || ch == '-' || ('a' <= ch && ch <= 'z') || ('A' <= ch && ch <= 'Z') || ('0' <= ch && ch <= '9')
		if !ok {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	if len(b) == 0 {
		return "reply"
	}
	return string(b)
}

// wrap names the model and server in err and removes the API key from it.
func (c *Client) wrap(err error) error {
	err = fmt.Errorf("model %s at %s: %w", c.cfg.Model, c.host, err)
	if c.cfg.APIKey == "" || !strings.Contains(err.Error(), c.cfg.APIKey) {
		return err
	}
	return &redactedError{msg: redactString(err.Error(), c.cfg.APIKey), err: err}
}

func redactString(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}

// redactedError carries a message with the API key replaced and still
// unwraps to the original error.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
