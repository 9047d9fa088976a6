package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pakton/pakton/internal/llm"
)

// Web search provider styles (WebConfig.Style).
const (
	StyleSearXNG = "searxng"
	StyleBrave   = "brave"
	StyleTavily  = "tavily"
)

const (
	defaultWebTimeout    = 15 * time.Second
	defaultWebResults    = 5
	maxWebResults        = 10
	maxResponseBytes     = 2 << 20 // per HTTP response from an external service
	maxSnippetRunes      = 600
	maxQueryRunes        = 400 // Brave rejects longer queries; others gain nothing
	externalUserAgent    = "pakton (+https://github.com/pakton/pakton)"
	externalSourceNotice = "external source, not contract text"
)

// WebConfig configures the web_search tool.
type WebConfig struct {
	// URL is the provider's base URL: a SearxNG instance
	// ("http://localhost:8888"), or for Brave and Tavily their API host
	// (default https://api.search.brave.com and https://api.tavily.com).
	URL string `json:"url,omitempty"`
	// Key is the API key: Brave's subscription token, Tavily's API key, or
	// for SearxNG an optional bearer token for an instance behind a proxy.
	Key string `json:"key,omitempty"`
	// Style is the provider's API: "searxng", "brave" or "tavily". Empty:
	// inferred from the URL's host, else searxng.
	Style string `json:"style,omitempty"`
	// MaxResults is the default number of results (5; the model may ask for
	// up to 10).
	MaxResults int `json:"max_results,omitempty"`
	// Timeout bounds one search (default 15s).
	Timeout Duration `json:"timeout,omitempty"`
}

// style returns the provider style, inferring it from the URL when unset.
func (c WebConfig) style() string {
	if s := strings.ToLower(strings.TrimSpace(c.Style)); s != "" {
		return s
	}
	if u, err := url.Parse(c.URL); err == nil {
		switch h := strings.ToLower(u.Hostname()); {
		case strings.HasSuffix(h, "search.brave.com"):
			return StyleBrave
		case strings.HasSuffix(h, "tavily.com"):
			return StyleTavily
		}
	}
	return StyleSearXNG
}

// defaultWebURL is the public API host of a provider; SearxNG has none.
func defaultWebURL(style string) string {
	switch style {
	case StyleBrave:
		return "https://api.search.brave.com"
	case StyleTavily:
		return "https://api.tavily.com"
	}
	return ""
}

// WebSearch is the web_search tool: a search through a configured provider
// (SearxNG, Brave Search API or Tavily) returning titles, URLs and snippets.
type WebSearch struct {
	style   string
	base    string
	key     string
	results int
	client  *http.Client
}

// NewWebSearch checks cfg and returns the tool. It does not contact the
// provider.
func NewWebSearch(cfg WebConfig) (*WebSearch, error) {
	style := cfg.style()
	switch style {
	case StyleSearXNG, StyleBrave, StyleTavily:
	default:
		return nil, fmt.Errorf("web_search: unknown style %q (want searxng, brave or tavily)", cfg.Style)
	}
	raw := cfg.URL
	if raw == "" {
		raw = defaultWebURL(style)
	}
	if raw == "" {
		return nil, fmt.Errorf("web_search: %s needs a URL (%s)", style, EnvWebSearchURL)
	}
	base, err := checkHTTPURL("web_search", raw)
	if err != nil {
		return nil, err
	}
	if style != StyleSearXNG && cfg.Key == "" {
		return nil, fmt.Errorf("web_search: %s needs an API key (%s)", style, EnvWebSearchKey)
	}
	return &WebSearch{
		style:   style,
		base:    base,
		key:     cfg.Key,
		results: clampInt(cfg.MaxResults, defaultWebResults, maxWebResults),
		client:  &http.Client{Timeout: cfg.Timeout.or(defaultWebTimeout)},
	}, nil
}

// Spec describes web_search to the model.
func (w *WebSearch) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name: "web_search",
		Description: "Search the public web for background the contracts do not contain: statutes, " +
			"regulations, court decisions, legal terms of art, facts about a party. Returns the top " +
			"results with titles, URLs and snippets. This is an external source: never cite it as " +
			"contract text, and do not put confidential contract text in the query.",
		Parameters: externalParams("search terms, as for a web search engine", "results", maxWebResults, w.results),
	}
}

// externalParams is the JSON schema of an external search tool's arguments
// (web_search, wikipedia): the query, described by query, and the number of
// results, named unit ("results", "articles"), at most max, def by default.
func externalParams(query, unit string, max, def int) json.RawMessage {
	return paramsOf[externalSearchArgs](func(p map[string]*jsonschema.Schema) {
		p["query"].Description = query
		p["max_results"].Description = "number of " + unit + " (default " + itoa(def) + ")"
		bounds(p["max_results"], 1, max)
	})
}

// externalSearchArgs are the arguments of an external search tool.
type externalSearchArgs struct {
	Query      string `json:"query"`
	MaxResults int    `json:"max_results,omitempty"`
}

// externalArgs reads the arguments of an external search tool named name:
// the query, trimmed and cut to maxQueryRunes, and the number of results,
// def when unset, at most max.
func externalArgs(name string, args json.RawMessage, def, max int) (query string, n int, err error) {
	var in externalSearchArgs
	if err := json.Unmarshal(args, &in); err != nil {
		return "", 0, fmt.Errorf("%s: arguments: %w", name, err)
	}
	query = truncateRunes(strings.TrimSpace(in.Query), maxQueryRunes)
	if query == "" {
		return "", 0, fmt.Errorf("%s: empty query", name)
	}
	return query, clampInt(in.MaxResults, def, max), nil
}

// webHit is one search result, whatever the provider.
type webHit struct {
	Title, URL, Snippet string
}

// Call runs one search.
func (w *WebSearch) Call(ctx context.Context, args json.RawMessage) (Result, error) {
	q, n, err := externalArgs("web_search", args, w.results, maxWebResults)
	if err != nil {
		return Result{}, err
	}
	var hits []webHit
	switch w.style {
	case StyleBrave:
		hits, err = w.brave(ctx, q, n)
	case StyleTavily:
		hits, err = w.tavily(ctx, q, n)
	default:
		hits, err = w.searxng(ctx, q, n)
	}
	if err != nil {
		return Result{}, fmt.Errorf("web_search (%s) %q: %w", w.style, q, err)
	}
	if len(hits) > n {
		hits = hits[:n]
	}
	return Result{Text: formatWebHits(w.style, q, hits), External: true}, nil
}

// searxng queries a SearxNG instance's JSON API.
func (w *WebSearch) searxng(ctx context.Context, q string, n int) ([]webHit, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		w.base+"/search?"+url.Values{"q": {q}, "format": {"json"}}.Encode(), nil)
	if err != nil {
		return nil, err
	}
	if w.key != "" {
		req.Header.Set("Authorization", "Bearer "+w.key)
	}
	var resp titleURLContent
	if err := fetchJSON(w.client, req, w.key, &resp); err != nil {
		var se *statusError
		if errors.As(err, &se) && se.status == http.StatusForbidden {
			return nil, fmt.Errorf("%w (SearxNG answers 403 when \"json\" is missing from search.formats in settings.yml)", err)
		}
		return nil, err
	}
	return resp.hits(), nil
}

// brave queries the Brave Search API.
func (w *WebSearch) brave(ctx context.Context, q string, n int) ([]webHit, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		w.base+"/res/v1/web/search?"+url.Values{"q": {q}, "count": {itoa(n)}}.Encode(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", w.key)
	var resp struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := fetchJSON(w.client, req, w.key, &resp); err != nil {
		return nil, err
	}
	hits := make([]webHit, 0, len(resp.Web.Results))
	for _, r := range resp.Web.Results {
		hits = append(hits, webHit{r.Title, r.URL, r.Description})
	}
	return hits, nil
}

// tavily queries the Tavily search API.
func (w *WebSearch) tavily(ctx context.Context, q string, n int) ([]webHit, error) {
	body, err := json.Marshal(map[string]any{"query": q, "max_results": n})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.base+"/search", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+w.key)
	var resp titleURLContent
	if err := fetchJSON(w.client, req, w.key, &resp); err != nil {
		return nil, err
	}
	return resp.hits(), nil
}

// titleURLContent is the results JSON of SearxNG and Tavily.
type titleURLContent struct {
	Results []struct {
		Title   string `json:"title"`
		URL     string `json:"url"`
		Content string `json:"content"`
	} `json:"results"`
}

func (r titleURLContent) hits() []webHit {
	hits := make([]webHit, 0, len(r.Results))
	for _, x := range r.Results {
		hits = append(hits, webHit{x.Title, x.URL, x.Content})
	}
	return hits
}

// formatWebHits renders results as numbered text for the model.
func formatWebHits(style, q string, hits []webHit) string {
	var b strings.Builder
	if len(hits) == 0 {
		fmt.Fprintf(&b, "No web results for %q.", q)
		return b.String()
	}
	fmt.Fprintf(&b, "Web search results for %q (%s; %s):\n", q, style, externalSourceNotice)
	for i, h := range hits {
		fmt.Fprintf(&b, "\n[%d] %s\n    %s\n", i+1, plainText(h.Title, 300), h.URL)
		if s := plainText(h.Snippet, maxSnippetRunes); s != "" {
			fmt.Fprintf(&b, "    %s\n", s)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

// plainText strips HTML tags (search APIs mark matches with <strong> or
// <span class="searchmatch">), decodes entities, collapses whitespace and
// truncates to max runes.
func plainText(s string, max int) string {
	s = html.UnescapeString(tagRE.ReplaceAllString(s, ""))
	return truncateRunes(strings.Join(strings.Fields(s), " "), max)
}

// truncateRunes cuts s to at most max runes, marking a cut with "…".
func truncateRunes(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

// statusError is a non-2xx answer from an external service.
type statusError struct {
	status int
	msg    string
}

func (e *statusError) Error() string {
	if e.msg == "" {
		return fmt.Sprintf("HTTP %d %s", e.status, http.StatusText(e.status))
	}
	return fmt.Sprintf("HTTP %d %s: %s", e.status, http.StatusText(e.status), e.msg)
}

// fetchJSON sends req and decodes a JSON answer of at most maxResponseBytes
// into out. Every error is scrubbed of secret (the API key), which a server
// may echo back in an error body.
func fetchJSON(client *http.Client, req *http.Request, secret string, out any) error {
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", externalUserAgent)
	}
	resp, err := client.Do(req)
	if err != nil {
		return redact(err, secret)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return redact(fmt.Errorf("read response: %w", err), secret)
	}
	if len(body) > maxResponseBytes {
		return fmt.Errorf("response larger than %d bytes", maxResponseBytes)
	}
	if resp.StatusCode/100 != 2 {
		return redact(&statusError{status: resp.StatusCode, msg: serviceMessage(body)}, secret)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("decode response (%s): %w", contentTypeOf(resp), err)
	}
	return nil
}

func contentTypeOf(resp *http.Response) string {
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		return ct
	}
	return "no content type"
}

// serviceMessage extracts the human-readable message of an error body:
// the common JSON shapes ({"error":"…"}, {"error":{"detail"|"message"|"info":"…"}},
// {"detail":"…"}, {"detail":{"error":"…"}}, {"message":"…"}), else the
// body's first line of text.
func serviceMessage(body []byte) string {
	var v map[string]any
	if json.Unmarshal(body, &v) == nil {
		for _, k := range []string{"error", "detail", "message", "info"} {
			if s := messageOf(v[k]); s != "" {
				return truncateRunes(s, 300)
			}
		}
	}
	s := strings.TrimSpace(string(body))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if !utf8.ValidString(s) {
		return ""
	}
	return plainText(s, 200)
}

func messageOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		for _, k := range []string{"detail", "message", "info", "error", "code"} {
			if s := messageOf(x[k]); s != "" {
				return s
			}
		}
	}
	return ""
}

// redactedError hides a secret in an error's message but keeps the chain
// (errors.Is still finds context.DeadlineExceeded).
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redact replaces every occurrence of secret in err's message.
func redact(err error, secret string) error {
	if err == nil || secret == "" || !strings.Contains(err.Error(), secret) {
		return err
	}
	return &redactedError{msg: strings.ReplaceAll(err.Error(), secret, "[redacted]"), err: err}
}
