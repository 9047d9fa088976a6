// Package embed turns texts into vectors through an OpenAI-compatible
// embeddings endpoint.
//
// The same wire protocol (POST {base}/embeddings) is spoken by OpenAI, Ollama
// (http://localhost:11434/v1), vLLM, llama.cpp's server, LM Studio and Text
// Embeddings Inference's OpenAI route, so one Client serves them all. Nothing
// here computes an embedding itself: with no server configured, callers use
// lexical search only.
package embed

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/pakton/pakton/internal/httpretry"
)

// Embedder turns texts into vectors. Consumers such as the vector index may
// declare their own narrower interface; Client satisfies this one.
type Embedder interface {
	// Embed returns one vector per text, in the order of texts.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Dim returns the vector length, or 0 until it is known.
	Dim() int
	// Name identifies the model, so vectors from different models are not mixed.
	Name() string
}

// Defaults applied by New to zero Config fields.
const (
	DefaultBatchSize  = 64
	DefaultMaxRetries = 4
	DefaultTimeout    = 60 * time.Second
)

// Config configures a Client.
type Config struct {
	// BaseURL is the API root, e.g. "http://localhost:11434/v1" or
	// "https://api.openai.com/v1"; requests go to BaseURL + "/embeddings".
	// A BaseURL that already ends in "/embeddings" is used as is. Required.
	BaseURL string
	// APIKey, when set, is sent as a Bearer token. It never appears in errors.
	APIKey string
	// Model is the embedding model name, e.g. "nomic-embed-text". Required.
	Model string
	// BatchSize is the number of texts per request; 0 means DefaultBatchSize.
	BatchSize int
	// MaxRetries is the number of retries of a failed request; 0 means
	// DefaultMaxRetries and a negative value disables retries.
	MaxRetries int
	// Timeout bounds each HTTP request; 0 means DefaultTimeout.
	Timeout time.Duration
	// Dimensions, when positive, is sent as "dimensions" to ask the model
	// for shorter vectors (OpenAI text-embedding-3 and Matryoshka models);
	// every returned vector must then have this length.
	Dimensions int
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
}

// FromEnv reads a Config from PAKTON_EMBED_URL, PAKTON_EMBED_MODEL,
// PAKTON_EMBED_API_KEY and PAKTON_EMBED_DIM. ok is false when the URL or the
// model is unset, meaning no embedder is configured. A PAKTON_EMBED_DIM that
// is not a positive integer yields a Config that New rejects.
func FromEnv() (cfg Config, ok bool) {
	cfg = Config{
		BaseURL: strings.TrimSpace(os.Getenv("PAKTON_EMBED_URL")),
		Model:   strings.TrimSpace(os.Getenv("PAKTON_EMBED_MODEL")),
		APIKey:  strings.TrimSpace(os.Getenv("PAKTON_EMBED_API_KEY")),
	}
	if v := strings.TrimSpace(os.Getenv("PAKTON_EMBED_DIM")); v != "" {
		d, err := strconv.Atoi(v)
		if err != nil || d <= 0 {
			d = -1
		}
		cfg.Dimensions = d
	}
	return cfg, cfg.BaseURL != "" && cfg.Model != ""
}

// Stats counts a Client's work since it was created.
type Stats struct {
	// Requests is the number of HTTP requests sent, retries included.
	Requests int64
	// Retries is the number of those requests that were retries.
	Retries int64
	// Texts is the number of texts embedded successfully.
	Texts int64
	// PromptTokens is the sum of usage.prompt_tokens reported by the server
	// (0 for servers that do not report usage).
	PromptTokens int64
	// Truncated is the number of texts the server refused as longer than
	// the model's context, which were then embedded from their beginning
	// (see Embed).
	Truncated int64
}

// Client is an Embedder backed by an OpenAI-compatible /embeddings endpoint.
// It is safe for concurrent use.
//
// Requests go through the same client as chat (internal/llm): the OpenAI Go
// SDK's embeddings service, with its own retries off. Each attempt is one SDK
// call under internal/httpretry's policy (per-attempt timeout, retries of
// 408, 429, 5xx and transport errors with backoff or Retry-After, the key
// kept out of errors); the reply body is read, bounded and decoded here, so
// both the float and the base64 form of a vector, and a reply without
// "index", are read as before.
type Client struct {
	url       string
	model     string
	batchSize int
	dims      int // requested dimensions, 0 for the model's default
	http      *httpretry.Client
	svc       openai.EmbeddingService

	dim          atomic.Int64 // vector length once known
	texts        atomic.Int64
	promptTokens atomic.Int64
	truncated    atomic.Int64
}

var _ Embedder = (*Client)(nil)

// New validates cfg, applies defaults and returns a Client. It makes no
// request: the vector length is learned from the first response (or from
// cfg.Dimensions).
func New(cfg Config) (*Client, error) {
	endpoint, err := httpretry.Endpoint(cfg.BaseURL, "embeddings")
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("embed: Model is required")
	}
	if cfg.Dimensions < 0 {
		return nil, errors.New("embed: Dimensions (PAKTON_EMBED_DIM) must be a positive integer")
	}
	if cfg.BatchSize < 0 {
		return nil, fmt.Errorf("embed: BatchSize %d is negative", cfg.BatchSize)
	}
	c := &Client{
		url:       endpoint,
		model:     cfg.Model,
		batchSize: orDefault(cfg.BatchSize, DefaultBatchSize),
		dims:      cfg.Dimensions,
		http: &httpretry.Client{
			HTTP:       cfg.HTTPClient,
			APIKey:     cfg.APIKey,
			MaxRetries: max(orDefault(cfg.MaxRetries, DefaultMaxRetries), 0),
			Timeout:    orDefault(cfg.Timeout, DefaultTimeout),
		},
	}
	hc := &http.Client{}
	if cfg.HTTPClient != nil {
		*hc = *cfg.HTTPClient
	}
	opts := []option.RequestOption{
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
		option.WithBaseURL(strings.TrimSuffix(endpoint, "embeddings")),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	c.svc = openai.NewEmbeddingService(opts...)
	c.dim.Store(int64(cfg.Dimensions))
	return c, nil
}

// cmp returns v, or def when v is zero.
func orDefault[T int | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// Name returns the model name, with the requested dimensions appended
// ("text-embedding-3-large@256") when Config.Dimensions is set.
func (c *Client) Name() string {
	if c.dims > 0 {
		return c.model + "@" + strconv.Itoa(c.dims)
	}
	return c.model
}

// Dim returns the vector length: Config.Dimensions if set, otherwise the
// length seen in the first successful response, or 0 before that.
func (c *Client) Dim() int { return int(c.dim.Load()) }

// Stats returns the Client's counters.
func (c *Client) Stats() Stats {
	req, retries := c.http.Counts()
	return Stats{Requests: req, Retries: retries, Texts: c.texts.Load(), PromptTokens: c.promptTokens.Load(), Truncated: c.truncated.Load()}
}

// Embed returns one vector per text, in order, sending BatchSize texts per
// request. Empty input returns nil without a request. Every vector has the
// same length as every vector this Client returned before; a server that
// changes length (a swapped model) is an error, not a silently broken index.
//
// A text longer than the model's context is embedded from its beginning.
// Servers differ here: some truncate silently, others refuse the whole
// request (Ollama's /v1/embeddings answers 400 "the input length exceeds
// the context length" when its own truncation does not fit). On such a
// refusal Embed halves the batch until it finds the texts refused, then
// halves each of those until the server takes it, and counts it in
// Stats.Truncated. Any other error fails the call.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += c.batchSize {
		end := min(start+c.batchSize, len(texts))
		vecs, err := c.embedFitting(ctx, texts[start:end])
		if err != nil {
			return nil, fmt.Errorf("embed: model %q at %s, texts %d..%d of %d: %w",
				c.model, c.url, start, end-1, len(texts), err)
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// minTruncatedRunes is the shortest beginning of a text Embed tries before
// it gives up on a text the server keeps refusing as too long.
const minTruncatedRunes = 64

// embedFitting embeds texts, working around a refusal for length as Embed
// describes.
func (c *Client) embedFitting(ctx context.Context, texts []string) ([][]float32, error) {
	vecs, err := c.embedBatch(ctx, texts)
	if err == nil || !tooLong(err) {
		return vecs, err
	}
	if len(texts) > 1 {
		mid := len(texts) / 2
		a, err := c.embedFitting(ctx, texts[:mid])
		if err != nil {
			return nil, err
		}
		b, err := c.embedFitting(ctx, texts[mid:])
		if err != nil {
			return nil, err
		}
		return append(a, b...), nil
	}
	r := []rune(texts[0])
	for len(r) > minTruncatedRunes {
		r = r[:len(r)/2]
		vecs, err2 := c.embedBatch(ctx, []string{string(r)})
		if err2 == nil {
			if c.truncated.Add(1) == 1 {
				slog.Warn("embed: a text is longer than the embedding model's context; it and any others like it are embedded from their beginning",
					"model", c.model, "chars", len([]rune(texts[0])), "kept", len(r))
			}
			return vecs, nil
		}
		if !tooLong(err2) {
			return nil, err2
		}
	}
	return nil, fmt.Errorf("%w (refused as too long even cut to its first %d characters)", err, len(r))
}

// tooLong reports whether err is a server's refusal of an input longer than
// the model's context. The servers word it differently: Ollama "the input
// length exceeds the context length", vLLM and OpenAI "maximum context
// length is N tokens", Text Embeddings Inference "must have less than N
// tokens", llama.cpp "input is too large to process".
func tooLong(err error) bool {
	var se *httpretry.StatusError
	if !errors.As(err, &se) {
		return false
	}
	switch se.StatusCode {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity, http.StatusInternalServerError:
	default:
		return false
	}
	m := strings.ToLower(se.Message)
	for _, w := range []string{"context length", "context window", "maximum context", "too long", "too large", "less than", "exceeds"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

type response struct {
	Data []struct {
		Index     *int            `json:"index"`
		Embedding json.RawMessage `json:"embedding"`
	} `json:"data"`
	Usage struct {
		PromptTokens int64 `json:"prompt_tokens"`
	} `json:"usage"`
}

// post sends one embeddings request for texts under the retry policy and
// returns the reply body.
func (c *Client) post(ctx context.Context, texts []string) ([]byte, error) {
	params := openai.EmbeddingNewParams{
		Model:          c.model,
		Input:          openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
		EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat,
	}
	if c.dims > 0 {
		params.Dimensions = openai.Int(int64(c.dims))
	}
	return c.http.Do(ctx, c.url, func(ctx context.Context) ([]byte, time.Duration, error) {
		var body []byte
		var retryAfter time.Duration
		// The middleware reads the reply the way every model client here
		// does (bounded, a failed status as *httpretry.StatusError with the
		// server's message and Retry-After), so the SDK only sends.
		read := func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			resp, err := next(req)
			if err != nil {
				return resp, err
			}
			defer resp.Body.Close()
			b, ra, err := c.http.Read(c.url, resp)
			if err != nil {
				retryAfter = ra
				return nil, err
			}
			resp.Body = io.NopCloser(bytes.NewReader(b))
			return resp, nil
		}
		_, err := c.svc.New(ctx, params, option.WithMiddleware(read), option.WithResponseBodyInto(&body))
		return body, retryAfter, err
	})
}

func (c *Client) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := c.post(ctx, texts)
	if err != nil {
		return nil, err
	}
	var resp response
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("decode response: %w", err)
	}
	if len(resp.Data) != len(texts) {
		return nil, fmt.Errorf("server returned %d embeddings for %d texts", len(resp.Data), len(texts))
	}
	vecs := make([][]float32, len(texts))
	for pos, d := range resp.Data {
		i := pos // servers that omit "index" return data in input order
		if d.Index != nil {
			i = *d.Index
		}
		if i < 0 || i >= len(texts) {
			return nil, fmt.Errorf("server returned embedding index %d for %d texts", i, len(texts))
		}
		if vecs[i] != nil {
			return nil, fmt.Errorf("server returned embedding index %d twice", i)
		}
		v, err := decodeVector(d.Embedding)
		if err != nil {
			return nil, fmt.Errorf("embedding %d: %w", i, err)
		}
		if len(v) == 0 {
			return nil, fmt.Errorf("embedding %d is empty", i)
		}
		vecs[i] = v
	}
	n := len(vecs[0])
	for i, v := range vecs {
		if len(v) != n {
			return nil, fmt.Errorf("inconsistent dimensions: embedding 0 has %d, embedding %d has %d", n, i, len(v))
		}
	}
	if err := c.checkDim(n); err != nil {
		return nil, err
	}
	c.texts.Add(int64(len(texts)))
	c.promptTokens.Add(resp.Usage.PromptTokens)
	return vecs, nil
}

// checkDim records n as the vector length, or reports that it differs from
// the one already known.
func (c *Client) checkDim(n int) error {
	if c.dim.CompareAndSwap(0, int64(n)) {
		return nil
	}
	if want := c.Dim(); want != n {
		if c.dims > 0 {
			return fmt.Errorf("server returned %d-dimensional vectors, but dimensions=%d was requested (does the model support \"dimensions\"?)", n, want)
		}
		return fmt.Errorf("server returned %d-dimensional vectors, earlier ones had %d (was the model changed?)", n, want)
	}
	return nil
}

// decodeVector reads an embedding given either as a JSON array of numbers or,
// for encoding_format "base64", as a base64 string of little-endian float32s.
func decodeVector(raw json.RawMessage) ([]float32, error) {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("decode base64 embedding: %w", err)
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("decode base64 embedding: %w", err)
		}
		if len(b)%4 != 0 {
			return nil, fmt.Errorf("base64 embedding has %d bytes, not a whole number of float32s", len(b))
		}
		v := make([]float32, len(b)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return v, nil
	}
	var v []float32
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("decode embedding: %w", err)
	}
	return v, nil
}
