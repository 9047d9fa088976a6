package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pakton/pakton/internal/llm"
)

// Environment variables that configure the external tools. MCP servers are
// configured only in the config file (a command line does not fit one
// variable well).
const (
	EnvWebSearchURL   = "PAKTON_WEB_SEARCH_URL"
	EnvWebSearchKey   = "PAKTON_WEB_SEARCH_KEY"
	EnvWebSearchStyle = "PAKTON_WEB_SEARCH_STYLE"
	EnvWikipediaURL   = "PAKTON_WIKIPEDIA_URL"
	EnvSQLDriver      = "PAKTON_SQL_DRIVER"
	EnvSQLDSN         = "PAKTON_SQL_DSN"
)

// ExternalConfig says which external tools the Researcher may use. A nil
// field (or an empty MCP list) leaves that tool off; the zero value turns
// every external tool off.
type ExternalConfig struct {
	WebSearch *WebConfig  `json:"web_search,omitempty"`
	Wikipedia *WikiConfig `json:"wikipedia,omitempty"`
	SQL       *SQLConfig  `json:"sql,omitempty"`
	MCP       []MCPServer `json:"mcp,omitempty"`
}

// Duration is a time.Duration read from JSON as a Go duration string
// ("15s", "2m") or a number of seconds.
type Duration time.Duration

// UnmarshalJSON reads "15s" or 15 (seconds).
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("duration %q: %w", s, err)
		}
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return fmt.Errorf("duration %s: want a string like \"15s\" or a number of seconds", b)
	}
	*d = Duration(secs * float64(time.Second))
	return nil
}

// MarshalJSON writes the duration as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// or returns d, or def when d is not positive.
func (d Duration) or(def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return time.Duration(d)
}

// ConfigPath returns the path of pakton's JSON config file,
// $XDG_CONFIG_HOME/pakton/config.json (or the platform's user config
// directory), the same file internal/llm reads its "llm" key from. It
// returns "" when no config directory is known.
func ConfigPath() string { return llm.DefaultConfigPath() }

// LoadExternalConfig reads the "tools" section of the config file at path
// (a missing file or section is not an error; other keys of the file are
// ignored) and then applies the environment variables read through getenv,
// which take precedence over the file. A nil getenv reads the process
// environment; an empty path skips the file.
func LoadExternalConfig(path string, getenv func(string) string) (ExternalConfig, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	var cfg ExternalConfig
	if path != "" {
		var err error
		cfg, err = readExternalConfigFile(path)
		if err != nil {
			return ExternalConfig{}, err
		}
	}
	if err := applyExternalEnv(&cfg, getenv); err != nil {
		return ExternalConfig{}, err
	}
	return cfg, nil
}

// readExternalConfigFile reads the "tools" key of the config file.
func readExternalConfigFile(path string) (ExternalConfig, error) {
	var cfg ExternalConfig
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, fmt.Errorf("read config %s: %w", path, err)
	}
	// Only the "tools" key is ours; the rest of the file belongs to other
	// packages and is left unparsed.
	var file struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, err)
	}
	if len(file.Tools) == 0 || string(file.Tools) == "null" {
		return cfg, nil
	}
	if err := json.Unmarshal(file.Tools, &cfg); err != nil {
		return cfg, fmt.Errorf("config %s: \"tools\": %w", path, err)
	}
	return cfg, nil
}

// applyExternalEnv overlays the environment variables on cfg.
func applyExternalEnv(cfg *ExternalConfig, getenv func(string) string) error {
	env := func(k string) string { return strings.TrimSpace(getenv(k)) }

	if u, key, style := env(EnvWebSearchURL), env(EnvWebSearchKey), env(EnvWebSearchStyle); u != "" || key != "" || style != "" {
		w := cfg.WebSearch
		if w == nil {
			w = &WebConfig{}
		}
		if u != "" {
			w.URL = u
		}
		if key != "" {
			w.Key = key
		}
		if style != "" {
			w.Style = style
		}
		// A key or a style alone does not turn web search on unless the
		// provider has a well-known endpoint (Brave, Tavily).
		if w.URL != "" || defaultWebURL(w.style()) != "" {
			cfg.WebSearch = w
		}
	}
	if u := env(EnvWikipediaURL); u != "" {
		if cfg.Wikipedia == nil {
			cfg.Wikipedia = &WikiConfig{}
		}
		cfg.Wikipedia.URL = u
	}
	if drv, dsn := env(EnvSQLDriver), env(EnvSQLDSN); drv != "" || dsn != "" {
		if cfg.SQL == nil {
			cfg.SQL = &SQLConfig{}
		}
		if drv != "" {
			cfg.SQL.Driver = drv
		}
		if dsn != "" {
			cfg.SQL.DSN = dsn
		}
	}
	return nil
}

// External builds the configured external tools, in a stable order: web
// search, Wikipedia, SQL, then each MCP server's tools. With nothing
// configured it returns no tools. The returned close function releases the
// database and MCP sessions; it is never nil and is safe to call once.
//
// Configuration errors, an unreachable database and an MCP server that
// cannot be started or listed are reported as errors naming the tool, so a
// tool the user asked for never silently disappears. Web search and
// Wikipedia are not contacted until called.
func External(ctx context.Context, cfg ExternalConfig) ([]Tool, func() error, error) {
	var (
		tools   []Tool
		closers []func() error
	)
	closeAll := func() error {
		var errs []error
		for i := len(closers) - 1; i >= 0; i-- {
			errs = append(errs, closers[i]())
		}
		closers = nil
		return errors.Join(errs...)
	}
	fail := func(err error) ([]Tool, func() error, error) {
		_ = closeAll()
		return nil, func() error { return nil }, err
	}

	if cfg.WebSearch != nil {
		t, err := NewWebSearch(*cfg.WebSearch)
		if err != nil {
			return fail(err)
		}
		tools = append(tools, t)
	}
	if cfg.Wikipedia != nil {
		t, err := NewWikipedia(*cfg.Wikipedia)
		if err != nil {
			return fail(err)
		}
		tools = append(tools, t)
	}
	if cfg.SQL != nil {
		t, err := OpenSQL(ctx, *cfg.SQL)
		if err != nil {
			return fail(err)
		}
		tools = append(tools, t)
		closers = append(closers, t.Close)
	}
	if len(cfg.MCP) > 0 {
		seen := map[string]bool{}
		for _, srv := range cfg.MCP {
			if seen[srv.Name] {
				return fail(fmt.Errorf("mcp server %q: configured twice", srv.Name))
			}
			seen[srv.Name] = true
		}
		mt, closeMCP, err := ConnectMCP(ctx, cfg.MCP)
		if err != nil {
			return fail(err)
		}
		closers = append(closers, closeMCP)
		tools = append(tools, mt...)
	}
	return tools, closeAll, nil
}

// checkHTTPURL validates a configured base URL and returns it without a
// trailing slash.
func checkHTTPURL(what, raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		// url.Parse echoes the input; a base URL may carry credentials.
		return "", fmt.Errorf("%s: invalid URL", what)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("%s: URL %q must be http(s)://host[/path]", what, u.Redacted())
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// clampInt returns v clamped to [1, max], or def when v is not positive.
func clampInt(v, def, max int) int {
	if v <= 0 {
		return def
	}
	if v > max {
		return max
	}
	return v
}

// itoa is strconv.Itoa, short for message building.
func itoa(n int) string { return strconv.Itoa(n) }
