package tool

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestConfigNothingConfigured(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.json")
	noTools := writeConfig(t, `{"llm": {"default": {"url": "http://localhost:11434/v1"}}}`)
	for _, path := range []string{"", missing, noTools} {
		cfg, err := LoadExternalConfig(path, envMap(nil))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !reflect.DeepEqual(cfg, ExternalConfig{}) {
			t.Errorf("%s: cfg = %+v", path, cfg)
		}
		tools, closeFn, err := External(context.Background(), cfg)
		if err != nil || len(tools) != 0 || closeFn == nil || closeFn() != nil {
			t.Errorf("%s: External = %d tools, %v", path, len(tools), err)
		}
	}
}

func TestConfigFromEnv(t *testing.T) {
	cfg, err := LoadExternalConfig("", envMap(map[string]string{
		EnvWebSearchURL:   "http://localhost:8888",
		EnvWebSearchKey:   "k1",
		EnvWebSearchStyle: "searxng",
		EnvWikipediaURL:   "https://en.wikipedia.org",
		EnvSQLDriver:      "sqlite",
		EnvSQLDSN:         "/data/c.db",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := ExternalConfig{
		WebSearch: &WebConfig{URL: "http://localhost:8888", Key: "k1", Style: "searxng"},
		Wikipedia: &WikiConfig{URL: "https://en.wikipedia.org"},
		SQL:       &SQLConfig{Driver: "sqlite", DSN: "/data/c.db"},
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("cfg = %+v", cfg)
	}

	// Brave or Tavily need no URL; a key alone turns nothing on.
	cfg, _ = LoadExternalConfig("", envMap(map[string]string{EnvWebSearchStyle: "brave", EnvWebSearchKey: "k"}))
	if cfg.WebSearch == nil || cfg.WebSearch.Style != "brave" {
		t.Errorf("brave by style: %+v", cfg.WebSearch)
	}
	cfg, _ = LoadExternalConfig("", envMap(map[string]string{EnvWebSearchKey: "k"}))
	if cfg.WebSearch != nil {
		t.Errorf("key alone turned web search on: %+v", cfg.WebSearch)
	}
}

func TestConfigFromFile(t *testing.T) {
	path := writeConfig(t, `{
  "llm": {"default": {"url": "http://localhost:11434/v1", "model": "qwen3"}, "roles": {"researcher": {}}},
  "server": {"addr": ":8080"},
  "tools": {
    "web_search": {"url": "http://searx.local", "style": "searxng", "max_results": 4, "timeout": "5s"},
    "wikipedia": {"url": "https://de.wikipedia.org", "timeout": 7},
    "sql": {"driver": "sqlite", "dsn": "/data/file.db", "max_rows": 50, "timeout": "1m"},
    "mcp": [
      {"name": "fs", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv"], "env": {"A": "b"}},
      {"name": "crm", "url": "http://localhost:9000/mcp", "headers": {"Authorization": "Bearer ${CRM_TOKEN}"}, "timeout": "90s"}
    ],
    "future_tool": {"x": 1}
  }
}`)
	cfg, err := LoadExternalConfig(path, envMap(map[string]string{
		EnvSQLDSN:       "/data/env.db", // the environment wins over the file
		EnvWikipediaURL: "",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := ExternalConfig{
		WebSearch: &WebConfig{URL: "http://searx.local", Style: "searxng", MaxResults: 4, Timeout: Duration(5 * time.Second)},
		Wikipedia: &WikiConfig{URL: "https://de.wikipedia.org", Timeout: Duration(7 * time.Second)},
		SQL:       &SQLConfig{Driver: "sqlite", DSN: "/data/env.db", MaxRows: 50, Timeout: Duration(time.Minute)},
		MCP: []MCPServer{
			{Name: "fs", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/srv"}, Env: map[string]string{"A": "b"}},
			{Name: "crm", URL: "http://localhost:9000/mcp", Headers: map[string]string{"Authorization": "Bearer ${CRM_TOKEN}"}, Timeout: Duration(90 * time.Second)},
		},
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("cfg =\n%+v\nwant\n%+v", cfg, want)
	}

	for _, bad := range []string{`{"tools": `, `{"tools": {"sql": {"timeout": "soon"}}}`, `{"tools": {"mcp": {"name": "x"}}}`} {
		if _, err := LoadExternalConfig(writeConfig(t, bad), envMap(nil)); err == nil || !strings.Contains(err.Error(), "config") {
			t.Errorf("%s: err = %v", bad, err)
		}
	}
}

func TestConfigPath(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/cfg")
	if got := ConfigPath(); got != "/cfg/pakton/config.json" {
		t.Errorf("ConfigPath = %q", got)
	}
}

func TestExternalErrorsNameTheTool(t *testing.T) {
	for _, tc := range []struct {
		cfg  ExternalConfig
		want string
	}{
		{ExternalConfig{WebSearch: &WebConfig{Style: "bing", URL: "http://x"}}, "web_search"},
		{ExternalConfig{Wikipedia: &WikiConfig{URL: "en.wikipedia.org"}}, "wikipedia"},
		{ExternalConfig{SQL: &SQLConfig{DSN: filepath.Join(t.TempDir(), "missing.db")}}, "sql_query"},
		{ExternalConfig{MCP: []MCPServer{{Name: "a", Command: "true"}, {Name: "a", Command: "true"}}}, "configured twice"},
	} {
		tools, closeFn, err := External(context.Background(), tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || tools != nil || closeFn == nil {
			t.Errorf("%s: tools %v, err %v", tc.want, tools, err)
		}
	}
}
