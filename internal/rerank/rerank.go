// Package rerank scores (query, document) pairs with a cross-encoder served
// over HTTP, so retrieval can reorder its candidates by relevance.
//
// Two wire protocols cover the servers in use:
//
//   - Cohere/Jina: POST {base}/rerank {"model","query","documents","top_n"}
//     → {"results":[{"index","relevance_score"}]}. Spoken by Cohere, Jina,
//     vLLM, Infinity and llama.cpp's server.
//   - TEI (Hugging Face Text Embeddings Inference): POST {base}/rerank
//     {"query","texts"} → [{"index","score"}].
//
// Style "auto" sends the Cohere/Jina request first, reads whichever response
// shape comes back, and switches to the TEI request for good if the server
// rejects the first one as malformed. Nothing here scores text itself: with no
// server configured, callers keep their retrieval order.
package rerank

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pakton/pakton/internal/httpretry"
)

// Reranker scores documents against a query.
type Reranker interface {
	// Rerank returns one relevance score per document, in the order of docs;
	// higher is more relevant.
	Rerank(ctx context.Context, query string, docs []string) ([]float64, error)
	// Name identifies the model.
	Name() string
}

// Request styles accepted in Config.Style.
const (
	StyleAuto   = "auto"
	StyleCohere = "cohere"
	StyleJina   = "jina"
	StyleTEI    = "tei"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultMaxRetries = 4
	DefaultTimeout    = 60 * time.Second
	// DefaultBatchSize matches TEI's default --max-client-batch-size; larger
	// requests are rejected by a default TEI server.
	DefaultBatchSize = 32
)

// Config configures a Client.
type Config struct {
	// BaseURL is the API root, e.g. "http://localhost:8080" (TEI),
	// "https://api.jina.ai/v1" or "https://api.cohere.com/v2"; requests go to
	// BaseURL + "/rerank". A BaseURL ending in "/rerank" is used as is. Required.
	BaseURL string
	// APIKey, when set, is sent as a Bearer token. It never appears in errors.
	APIKey string
	// Model is the reranker name, e.g. "BAAI/bge-reranker-v2-m3". Required
	// for the cohere and jina styles; TEI serves one model and ignores it.
	Model string
	// Style is "auto" (or empty), "cohere", "jina" or "tei".
	Style string
	// Timeout bounds each HTTP request; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxRetries is the number of retries of a failed request; 0 means
	// DefaultMaxRetries and a negative value disables retries.
	MaxRetries int
	// BatchSize is the number of documents per request; 0 means
	// DefaultBatchSize. Cross-encoder scores do not depend on the other
	// documents in a request, so batches are scored independently.
	BatchSize int
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
}

// FromEnv reads a Config from PAKTON_RERANK_URL, PAKTON_RERANK_MODEL,
// PAKTON_RERANK_API_KEY and PAKTON_RERANK_STYLE. ok is false when the URL is
// unset, meaning no reranker is configured; New reports any other problem.
func FromEnv() (cfg Config, ok bool) {
	cfg = Config{
		BaseURL: strings.TrimSpace(os.Getenv("PAKTON_RERANK_URL")),
		Model:   strings.TrimSpace(os.Getenv("PAKTON_RERANK_MODEL")),
		APIKey:  strings.TrimSpace(os.Getenv("PAKTON_RERANK_API_KEY")),
		Style:   strings.TrimSpace(os.Getenv("PAKTON_RERANK_STYLE")),
	}
	return cfg, cfg.BaseURL != ""
}

// wire is the request body a Client sends.
type wire int32

const (
	wireUnknown wire = iota // auto, not yet detected: try cohere, fall back to tei
	wireCohere
	wireJina
	wireTEI
)

// Client is a Reranker backed by a Cohere/Jina- or TEI-style /rerank
// endpoint. It is safe for concurrent use.
type Client struct {
	url       string
	model     string
	batchSize int
	http      *httpretry.Client
	wire      atomic.Int32 // a wire; set once auto-detection succeeds
}

var _ Reranker = (*Client)(nil)

// New validates cfg, applies defaults and returns a Client. It makes no
// request.
func New(cfg Config) (*Client, error) {
	endpoint, err := httpretry.Endpoint(cfg.BaseURL, "rerank")
	if err != nil {
		return nil, fmt.Errorf("rerank: %w", err)
	}
	var w wire
	switch strings.ToLower(strings.TrimSpace(cfg.Style)) {
	case "", StyleAuto:
		w = wireUnknown
	case StyleCohere:
		w = wireCohere
	case StyleJina:
		w = wireJina
	case StyleTEI:
		w = wireTEI
	default:
		return nil, fmt.Errorf("rerank: Style %q (PAKTON_RERANK_STYLE) must be auto, cohere, jina or tei", cfg.Style)
	}
	model := strings.TrimSpace(cfg.Model)
	if model == "" && (w == wireCohere || w == wireJina) {
		return nil, fmt.Errorf("rerank: Model is required for style %q", cfg.Style)
	}
	if cfg.BatchSize < 0 {
		return nil, fmt.Errorf("rerank: BatchSize %d is negative", cfg.BatchSize)
	}
	c := &Client{
		url:       endpoint,
		model:     model,
		batchSize: cfg.BatchSize,
		http: &httpretry.Client{
			HTTP:       cfg.HTTPClient,
			APIKey:     cfg.APIKey,
			MaxRetries: cfg.MaxRetries,
			Timeout:    cfg.Timeout,
		},
	}
	if c.batchSize == 0 {
		c.batchSize = DefaultBatchSize
	}
	switch {
	case c.http.MaxRetries == 0:
		c.http.MaxRetries = DefaultMaxRetries
	case c.http.MaxRetries < 0:
		c.http.MaxRetries = 0
	}
	if c.http.Timeout == 0 {
		c.http.Timeout = DefaultTimeout
	}
	c.wire.Store(int32(w))
	return c, nil
}

// Name returns the model name, or the endpoint URL when no model is
// configured (a TEI server serves exactly one model).
func (c *Client) Name() string {
	if c.model != "" {
		return c.model
	}
	return c.url
}

// Style returns the request style in use: "cohere", "jina" or "tei", or
// "auto" while auto-detection has not yet seen a successful response.
func (c *Client) Style() string {
	switch wire(c.wire.Load()) {
	case wireCohere:
		return StyleCohere
	case wireJina:
		return StyleJina
	case wireTEI:
		return StyleTEI
	}
	return StyleAuto
}

// Requests returns how many HTTP requests the Client has sent, retries
// included.
func (c *Client) Requests() int64 {
	n, _ := c.http.Counts()
	return n
}

// Rerank returns one score per document, in the order of docs, sending
// BatchSize documents per request. Empty docs returns nil without a request.
func (c *Client) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	if len(docs) == 0 {
		return nil, nil
	}
	scores := make([]float64, 0, len(docs))
	for start := 0; start < len(docs); start += c.batchSize {
		end := min(start+c.batchSize, len(docs))
		s, err := c.rerankBatch(ctx, query, docs[start:end])
		if err != nil {
			return nil, fmt.Errorf("rerank: %s at %s, documents %d..%d of %d: %w",
				c.Name(), c.url, start, end-1, len(docs), err)
		}
		scores = append(scores, s...)
	}
	return scores, nil
}

func (c *Client) rerankBatch(ctx context.Context, query string, docs []string) ([]float64, error) {
	w := wire(c.wire.Load())
	if w != wireUnknown {
		return c.send(ctx, w, query, docs)
	}
	scores, err := c.send(ctx, wireCohere, query, docs)
	if err == nil {
		c.wire.CompareAndSwap(int32(wireUnknown), int32(wireCohere))
		return scores, nil
	}
	if !malformedRequest(err) {
		return nil, err
	}
	scores, teiErr := c.send(ctx, wireTEI, query, docs)
	if teiErr != nil {
		return nil, fmt.Errorf("style auto: cohere/jina request failed (%v), tei request failed: %w", err, teiErr)
	}
	c.wire.CompareAndSwap(int32(wireUnknown), int32(wireTEI))
	return scores, nil
}

// malformedRequest reports whether err is a status with which a server
// rejects a request body it does not understand (TEI answers a Cohere-style
// body with 422), as opposed to auth, rate-limit or server failures.
func malformedRequest(err error) bool {
	var se *httpretry.StatusError
	if !errors.As(err, &se) {
		return false
	}
	switch se.StatusCode {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed,
		http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity:
		return true
	}
	return false
}

type cohereRequest struct {
	Model           string   `json:"model,omitempty"`
	Query           string   `json:"query"`
	Documents       []string `json:"documents"`
	TopN            int      `json:"top_n"`
	ReturnDocuments *bool    `json:"return_documents,omitempty"`
}

type teiRequest struct {
	Query    string   `json:"query"`
	Texts    []string `json:"texts"`
	Truncate bool     `json:"truncate"`
}

// send posts one batch in wire style w and parses whichever response shape
// comes back.
func (c *Client) send(ctx context.Context, w wire, query string, docs []string) ([]float64, error) {
	var body any
	switch w {
	case wireTEI:
		// Without truncate, TEI rejects any text longer than the model's
		// window; a long clause should be scored on its start instead.
		body = teiRequest{Query: query, Texts: docs, Truncate: true}
	case wireJina:
		no := false // Jina echoes every document back unless told not to
		body = cohereRequest{Model: c.model, Query: query, Documents: docs, TopN: len(docs), ReturnDocuments: &no}
	default:
		body = cohereRequest{Model: c.model, Query: query, Documents: docs, TopN: len(docs)}
	}
	resp, err := c.http.PostJSON(ctx, c.url, body)
	if err != nil {
		return nil, err
	}
	return parseScores(resp, len(docs))
}

type result struct {
	Index          *int     `json:"index"`
	RelevanceScore *float64 `json:"relevance_score"` // cohere, jina
	Score          *float64 `json:"score"`           // tei
}

// parseScores reads a Cohere/Jina object {"results":[...]} or a TEI array
// [...] and returns the score of each of n documents in input order.
func parseScores(body []byte, n int) ([]float64, error) {
	var results []result
	trimmed := strings.TrimSpace(string(body))
	switch {
	case strings.HasPrefix(trimmed, "["):
		if err := json.Unmarshal(body, &results); err != nil {
			return nil, fmt.Errorf("decode tei response: %w", err)
		}
	case strings.HasPrefix(trimmed, "{"):
		var obj struct {
			Results *[]result `json:"results"`
		}
		if err := json.Unmarshal(body, &obj); err != nil {
			return nil, fmt.Errorf("decode cohere/jina response: %w", err)
		}
		if obj.Results == nil {
			return nil, fmt.Errorf("response has no \"results\": %.200s", trimmed)
		}
		results = *obj.Results
	default:
		return nil, fmt.Errorf("response is neither a JSON object nor an array: %.200s", trimmed)
	}
	scores := make([]float64, n)
	seen := make([]bool, n)
	for _, r := range results {
		if r.Index == nil {
			return nil, errors.New("result without an index")
		}
		i := *r.Index
		if i < 0 || i >= n {
			return nil, fmt.Errorf("result index %d for %d documents", i, n)
		}
		if seen[i] {
			return nil, fmt.Errorf("result index %d appears twice", i)
		}
		switch {
		case r.RelevanceScore != nil:
			scores[i] = *r.RelevanceScore
		case r.Score != nil:
			scores[i] = *r.Score
		default:
			return nil, fmt.Errorf("result %d has no relevance_score or score", i)
		}
		seen[i] = true
	}
	if len(results) != n {
		return nil, fmt.Errorf("server scored %d of %d documents", len(results), n)
	}
	return scores, nil
}
