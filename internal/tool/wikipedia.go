package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/pakton/pakton/internal/llm"
)

const (
	defaultWikiResults = 3
	maxWikiResults     = 5
	maxExtractRunes    = 2000
)

// WikiConfig configures the wikipedia tool.
type WikiConfig struct {
	// URL is the wiki's base URL, e.g. "https://en.wikipedia.org"; the
	// MediaWiki API is at {URL}/w/api.php.
	URL string `json:"url"`
	// MaxResults is the default number of articles (3; the model may ask
	// for up to 5).
	MaxResults int `json:"max_results,omitempty"`
	// Timeout bounds one call, both requests together (default 15s).
	Timeout Duration `json:"timeout,omitempty"`
}

// Wikipedia is the wikipedia tool: a MediaWiki search followed by the
// plain-text introductions of the best matches.
type Wikipedia struct {
	base    string
	results int
	timeout time.Duration
	client  *http.Client
}

// NewWikipedia checks cfg and returns the tool. It does not contact the
// wiki.
func NewWikipedia(cfg WikiConfig) (*Wikipedia, error) {
	if strings.TrimSpace(cfg.URL) == "" {
		return nil, fmt.Errorf("wikipedia: no URL (%s, e.g. https://en.wikipedia.org)", EnvWikipediaURL)
	}
	base, err := checkHTTPURL("wikipedia", cfg.URL)
	if err != nil {
		return nil, err
	}
	// Accept the API endpoint itself as well as the wiki's root.
	base = strings.TrimSuffix(strings.TrimSuffix(base, "/w/api.php"), "/api.php")
	t := cfg.Timeout.or(defaultWebTimeout)
	return &Wikipedia{
		base:    base,
		results: clampInt(cfg.MaxResults, defaultWikiResults, maxWikiResults),
		timeout: t,
		client:  &http.Client{Timeout: t},
	}, nil
}

// Spec describes wikipedia to the model.
func (w *Wikipedia) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name: "wikipedia",
		Description: "Look up general background in Wikipedia: legal doctrines, terms of art, " +
			"institutions, jurisdictions, companies. Returns matching article titles, their " +
			"introductions and URLs. This is an external source: never cite it as contract text.",
		Parameters: externalParams("an article title or search terms", "articles", maxWikiResults, w.results),
	}
}

// wikiPage is one article found.
type wikiPage struct {
	Title   string `json:"title"`
	Extract string `json:"extract"`
	FullURL string `json:"fullurl"`
	Missing bool   `json:"missing"`
}

// Call searches the wiki and returns the introductions of the best matches.
func (w *Wikipedia) Call(ctx context.Context, args json.RawMessage) (Result, error) {
	q, n, err := externalArgs("wikipedia", args, w.results, maxWikiResults)
	if err != nil {
		return Result{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()

	titles, err := w.search(ctx, q, n)
	if err != nil {
		return Result{}, fmt.Errorf("wikipedia search %q: %w", q, err)
	}
	if len(titles) == 0 {
		return Result{Text: fmt.Sprintf("No Wikipedia articles match %q.", q), External: true}, nil
	}
	pages, err := w.extracts(ctx, titles)
	if err != nil {
		return Result{}, fmt.Errorf("wikipedia extracts for %q: %w", q, err)
	}

	var b strings.Builder
	fmt.Fprintf(&b, "Wikipedia articles for %q (%s):\n", q, externalSourceNotice)
	i := 0
	for _, t := range titles {
		p, ok := pages[t]
		if !ok || p.Missing {
			continue
		}
		i++
		u := p.FullURL
		if u == "" {
			u = w.base + "/wiki/" + url.PathEscape(strings.ReplaceAll(p.Title, " ", "_"))
		}
		fmt.Fprintf(&b, "\n[%d] %s\n    %s\n", i, p.Title, u)
		if ex := truncateRunes(strings.TrimSpace(p.Extract), maxExtractRunes); ex != "" {
			fmt.Fprintf(&b, "    %s\n", strings.ReplaceAll(ex, "\n", "\n    "))
		}
	}
	if i == 0 {
		return Result{Text: fmt.Sprintf("No Wikipedia articles match %q.", q), External: true}, nil
	}
	return Result{Text: strings.TrimRight(b.String(), "\n"), External: true}, nil
}

// search returns the titles of the best-matching articles, best first.
func (w *Wikipedia) search(ctx context.Context, q string, n int) ([]string, error) {
	var resp struct {
		Query struct {
			Search []struct {
				Title string `json:"title"`
			} `json:"search"`
		} `json:"query"`
	}
	if err := w.api(ctx, url.Values{
		"action": {"query"}, "list": {"search"}, "srsearch": {q},
		"srlimit": {itoa(n)}, "srprop": {""},
	}, &resp); err != nil {
		return nil, err
	}
	titles := make([]string, 0, len(resp.Query.Search))
	for _, s := range resp.Query.Search {
		titles = append(titles, s.Title)
	}
	return titles, nil
}

// extracts returns the plain-text introductions and URLs of titles, by
// title. Redirects are followed and reported under the requested title.
func (w *Wikipedia) extracts(ctx context.Context, titles []string) (map[string]wikiPage, error) {
	var resp struct {
		Query struct {
			Normalized []struct{ From, To string } `json:"normalized"`
			Redirects  []struct{ From, To string } `json:"redirects"`
			// formatversion=2 gives a list; the legacy format an object
			// keyed by page id.
			Pages json.RawMessage `json:"pages"`
		} `json:"query"`
	}
	if err := w.api(ctx, url.Values{
		"action": {"query"}, "prop": {"extracts|info"}, "inprop": {"url"},
		"explaintext": {"1"}, "exintro": {"1"}, "redirects": {"1"},
		"titles": {strings.Join(titles, "|")},
	}, &resp); err != nil {
		return nil, err
	}
	var list []wikiPage
	if len(resp.Query.Pages) > 0 && resp.Query.Pages[0] == '[' {
		if err := json.Unmarshal(resp.Query.Pages, &list); err != nil {
			return nil, fmt.Errorf("decode pages: %w", err)
		}
	} else if len(resp.Query.Pages) > 0 {
		var byID map[string]struct {
			wikiPage
			Missing *string `json:"missing"` // legacy format: "missing": ""
		}
		if err := json.Unmarshal(resp.Query.Pages, &byID); err != nil {
			return nil, fmt.Errorf("decode pages: %w", err)
		}
		for _, p := range byID {
			p.wikiPage.Missing = p.Missing != nil
			list = append(list, p.wikiPage)
		}
	}
	byTitle := make(map[string]wikiPage, len(list))
	for _, p := range list {
		byTitle[p.Title] = p
	}
	// Map each requested title through normalization and redirects.
	alias := map[string]string{}
	for _, m := range resp.Query.Normalized {
		alias[m.From] = m.To
	}
	for _, m := range resp.Query.Redirects {
		alias[m.From] = m.To
	}
	out := make(map[string]wikiPage, len(titles))
	for _, t := range titles {
		cur := t
		for range 3 { // normalized → redirect target, at most a short chain
			if p, ok := byTitle[cur]; ok {
				out[t] = p
				break
			}
			next, ok := alias[cur]
			if !ok {
				break
			}
			cur = next
		}
	}
	return out, nil
}

// api calls {base}/w/api.php with params (JSON format added) and decodes
// the answer into out, turning MediaWiki's in-band errors into errors.
func (w *Wikipedia) api(ctx context.Context, params url.Values, out any) error {
	params.Set("format", "json")
	params.Set("formatversion", "2")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.base+"/w/api.php?"+params.Encode(), nil)
	if err != nil {
		return err
	}
	var raw json.RawMessage
	if err := fetchJSON(w.client, req, "", &raw); err != nil {
		return err
	}
	var apiErr struct {
		Error *struct {
			Code string `json:"code"`
			Info string `json:"info"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &apiErr) == nil && apiErr.Error != nil {
		return fmt.Errorf("MediaWiki error %s: %s", apiErr.Error.Code, apiErr.Error.Info)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("decode response: %w", err)
	}
	return nil
}
