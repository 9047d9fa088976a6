// Package httpretry sends requests to model servers (the embeddings client's
// SDK calls through Client.Do, the reranker's plain JSON through PostJSON) and
// retries the failures that are worth retrying.
//
// Model servers are slow, shared and often overloaded: a 429 or a 503 usually
// means "try again shortly", and a dropped connection usually means the server
// was restarting. This package retries those with exponential backoff and
// jitter, honours Retry-After, stops at once on other client errors (a 400 will
// not heal by waiting) and on cancellation, and keeps the API key out of every
// error it returns.
package httpretry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Defaults used when the corresponding Client field is zero.
const (
	DefaultBaseDelay = 500 * time.Millisecond
	DefaultMaxDelay  = 30 * time.Second
)

// maxResponseBytes bounds how much of a response body is read. A batch of 64
// 4096-dimensional embeddings in JSON is about 5 MB; this leaves ample room.
const maxResponseBytes = 256 << 20

// maxMessageRunes bounds the server message quoted in a StatusError.
const maxMessageRunes = 300

// Client posts JSON requests with retries. Set its fields before first use and
// do not copy it afterwards (it holds counters). It is safe for concurrent use.
type Client struct {
	// HTTP sends the requests; nil means http.DefaultClient.
	HTTP *http.Client
	// APIKey, when set, is sent as "Authorization: Bearer <key>" and is
	// replaced by "[redacted]" in every error message.
	APIKey string
	// MaxRetries is the number of retries after the first attempt; zero or
	// negative means the request is tried once.
	MaxRetries int
	// Timeout bounds each attempt (connect, send, receive the whole body);
	// zero means only the caller's context bounds it.
	Timeout time.Duration
	// BaseDelay is the backoff before the first retry; it doubles on each
	// further retry. Zero means DefaultBaseDelay.
	BaseDelay time.Duration
	// MaxDelay caps both the backoff and a server's Retry-After. Zero means
	// DefaultMaxDelay.
	MaxDelay time.Duration

	requests atomic.Int64
	retries  atomic.Int64
}

// StatusError reports a non-2xx response.
type StatusError struct {
	// StatusCode is the HTTP status code, e.g. 400.
	StatusCode int
	// Message is the server's error message, trimmed and with the API key
	// redacted; empty when the body carried none.
	Message string
}

// Error implements error.
func (e *StatusError) Error() string {
	s := fmt.Sprintf("server returned %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Retryable reports whether a request that failed with e may succeed if sent
// again: 408 and 429, and 5xx except 501 Not Implemented and 505 HTTP Version
// Not Supported.
func (e *StatusError) Retryable() bool {
	switch c := e.StatusCode; {
	case c == http.StatusRequestTimeout, c == http.StatusTooManyRequests:
		return true
	case c == http.StatusNotImplemented, c == http.StatusHTTPVersionNotSupported:
		return false
	default:
		return c >= 500 && c <= 599
	}
}

// Counts returns how many HTTP requests c has sent, and how many of those
// were retries.
func (c *Client) Counts() (requests, retries int64) {
	return c.requests.Load(), c.retries.Load()
}

// PostJSON marshals in, posts it to url and returns the body of the first 2xx
// response. Transport errors (including a per-attempt timeout) and retryable
// statuses (see StatusError.Retryable) are retried up to MaxRetries times;
// other statuses fail at once with a *StatusError. Cancelling ctx stops
// waiting and sending immediately, and the error then wraps ctx.Err().
func (c *Client) PostJSON(ctx context.Context, url string, in any) ([]byte, error) {
	payload, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("encode request for %s: %w", url, err)
	}
	return c.Do(ctx, url, func(ctx context.Context) ([]byte, time.Duration, error) {
		return c.post(ctx, url, payload)
	})
}

// Do runs send, one attempt of a request to url, under c's policy: each
// attempt bounded by Timeout and counted, transport errors and retryable
// statuses retried up to MaxRetries times with backoff (or the server's
// Retry-After, which send returns with its error), other statuses failing at
// once, the API key kept out of every error. send returns the 2xx body, or a
// *StatusError for a failed status. PostJSON is Do with a plain POST; a
// client that sends through an SDK (internal/embed) passes its own send.
func (c *Client) Do(ctx context.Context, url string, send func(ctx context.Context) (body []byte, retryAfter time.Duration, err error)) ([]byte, error) {
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			c.retries.Add(1)
		}
		body, retryAfter, err := c.attempt(ctx, send)
		if err == nil {
			return body, nil
		}
		if ctx.Err() != nil {
			return nil, c.redact(fmt.Errorf("post %s: %w", url, context.Cause(ctx)))
		}
		var se *StatusError
		if errors.As(err, &se) && !se.Retryable() {
			return nil, c.redact(err)
		}
		if attempt >= c.MaxRetries {
			if attempt == 0 {
				return nil, c.redact(err)
			}
			return nil, c.redact(fmt.Errorf("giving up after %d attempts: %w", attempt+1, err))
		}
		wait := c.backoff(attempt, retryAfter)
		if err := PastDeadline(ctx, wait, attempt, err); err != nil {
			return nil, c.redact(err)
		}
		if !Sleep(ctx, wait) {
			return nil, c.redact(fmt.Errorf("post %s: %w (last error: %v)", url, context.Cause(ctx), err))
		}
	}
}

// attempt runs send once, bounded by Timeout, and counts it.
func (c *Client) attempt(ctx context.Context, send func(context.Context) ([]byte, time.Duration, error)) ([]byte, time.Duration, error) {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	c.requests.Add(1)
	return send(ctx)
}

// PastDeadline is the error of a call that gives up instead of retrying
// because ctx's deadline comes before the retry, wait from now, would be
// sent (attempt counts from zero, err is the last attempt's error); nil
// when there is time.
func PastDeadline(ctx context.Context, wait time.Duration, attempt int, err error) error {
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
		return fmt.Errorf("retry in %v would pass the deadline, after %d attempts: %w",
			wait.Round(time.Millisecond), attempt+1, err)
	}
	return nil
}

// Sleep waits for wait, or until ctx is done: then it returns false at once.
func Sleep(ctx context.Context, wait time.Duration) bool {
	t := time.NewTimer(wait)
	select {
	case <-ctx.Done():
		t.Stop()
		return false
	case <-t.C:
		return true
	}
}

// post sends one POST of payload to url. It returns the 2xx body, or an
// error and the server's Retry-After (zero when absent).
func (c *Client) post(ctx context.Context, url string, payload []byte) ([]byte, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return nil, 0, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, 0, err // *url.Error already names the method and URL
	}
	defer resp.Body.Close()
	return c.Read(url, resp)
}

// Read reads the body of resp, a reply from url, at most MaxResponseBytes of
// it: the body of a 2xx reply, or else a *StatusError with the server's
// message (the API key redacted) and its Retry-After.
func (c *Client) Read(url string, resp *http.Response) ([]byte, time.Duration, error) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, 0, fmt.Errorf("read response from %s: %w", url, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		se := &StatusError{StatusCode: resp.StatusCode, Message: c.redactString(serverMessage(body))}
		return nil, parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()), se
	}
	if len(body) > maxResponseBytes {
		return nil, 0, fmt.Errorf("response from %s exceeds %d bytes", url, maxResponseBytes)
	}
	return body, 0, nil
}

// backoff returns the wait before retry number attempt+1: the server's
// Retry-After when it gave one, otherwise BaseDelay·2^attempt with "equal
// jitter" (a random point in the upper half), both capped at MaxDelay.
func (c *Client) backoff(attempt int, retryAfter time.Duration) time.Duration {
	return Backoff(attempt, c.BaseDelay, c.MaxDelay, retryAfter)
}

// Backoff returns the wait before retry number attempt+1 (attempt counts
// from zero): retryAfter when the server gave one, otherwise base·2^attempt
// with "equal jitter" (a random point in the upper half), both capped at
// maxDelay. Zero base or maxDelay mean DefaultBaseDelay and DefaultMaxDelay.
// It is the policy Client uses, exported for clients that send their own
// requests (the chat client in internal/llm).
func Backoff(attempt int, base, maxDelay, retryAfter time.Duration) time.Duration {
	if base <= 0 {
		base = DefaultBaseDelay
	}
	if maxDelay <= 0 {
		maxDelay = DefaultMaxDelay
	}
	if retryAfter > 0 {
		return min(retryAfter, maxDelay)
	}
	d := base
	for i := 0; i < attempt && d < maxDelay; i++ {
		d *= 2
	}
	d = min(d, maxDelay)
	half := d / 2
	return half + rand.N(d-half+1)
}

// ParseRetryAfter reads a Retry-After header value, given either as delay
// seconds or as an HTTP date relative to now. It returns zero for an absent,
// malformed or past value.
func ParseRetryAfter(v string, now time.Time) time.Duration { return parseRetryAfter(v, now) }

// parseRetryAfter reads a Retry-After header, given either as delay seconds
// or as an HTTP date. It returns zero for an absent, malformed or past value.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 || secs > 1e6 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// ServerMessage extracts a human-readable error message from a model server's
// error body (see serverMessage), trimmed to a few hundred characters.
func ServerMessage(body []byte) string { return serverMessage(body) }

// serverMessage extracts a human-readable error message from an error body.
// It understands the shapes model servers use — OpenAI and llama.cpp
// {"error":{"message"}}, Ollama and TEI {"error":"..."}, vLLM and Cohere
// {"message"}, FastAPI {"detail"} — and falls back to the raw body.
func serverMessage(body []byte) string {
	var shape struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	msg := ""
	if json.Unmarshal(body, &shape) == nil {
		var s string
		var nested struct {
			Message string `json:"message"`
		}
		switch {
		case json.Unmarshal(shape.Error, &s) == nil && s != "":
			msg = s
		case json.Unmarshal(shape.Error, &nested) == nil && nested.Message != "":
			msg = nested.Message
		case shape.Message != "":
			msg = shape.Message
		case json.Unmarshal(shape.Detail, &s) == nil && s != "":
			msg = s
		case len(shape.Detail) > 0 && string(shape.Detail) != "null":
			msg = string(shape.Detail)
		}
	}
	if msg == "" {
		msg = string(body)
	}
	return trimMessage(msg)
}

// trimMessage collapses whitespace, drops invalid UTF-8 and cuts s to
// maxMessageRunes.
func trimMessage(s string) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "")), " ")
	n := 0
	for i := range s {
		if n == maxMessageRunes {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

func (c *Client) redactString(s string) string {
	if c.APIKey == "" {
		return s
	}
	return strings.ReplaceAll(s, c.APIKey, "[redacted]")
}

// redact returns err unchanged unless its message contains the API key, in
// which case it returns an error with the key replaced that still unwraps to
// err.
func (c *Client) redact(err error) error {
	if err == nil || c.APIKey == "" || !strings.Contains(err.Error(), c.APIKey) {
		return err
	}
	return &redactedError{msg: c.redactString(err.Error()), err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Endpoint validates base, an API root such as "http://localhost:11434/v1",
// and returns base + "/" + path (e.g. "embeddings"). A base that already ends
// in "/" + path is returned as is, so users may paste either form.
func Endpoint(base, path string) (string, error) {
	base = strings.TrimRight(strings.TrimSpace(base), "/")
	if base == "" {
		return "", errors.New("base URL is required (e.g. http://localhost:11434/v1)")
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("base URL %q: %w", base, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("base URL %q must be an http or https URL such as http://localhost:11434/v1", base)
	}
	if strings.HasSuffix(u.Path, "/"+path) {
		return base, nil
	}
	return base + "/" + path, nil
}
