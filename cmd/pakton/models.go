package main

import (
	"flag"
	"fmt"

	"github.com/pakton/pakton/internal/embed"
	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/rerank"
	"github.com/pakton/pakton/internal/search"
)

// embedderFromEnv returns the embedding client configured by PAKTON_EMBED_*
// variables, or nil when none is configured (lexical search only).
func embedderFromEnv() (*embed.Client, error) {
	return clientFromEnv(embed.FromEnv, embed.New, "embedding server (PAKTON_EMBED_*)")
}

// rerankerFromEnv returns the rerank client configured by PAKTON_RERANK_*
// variables, or nil when none is configured.
func rerankerFromEnv() (*rerank.Client, error) {
	return clientFromEnv(rerank.FromEnv, rerank.New, "rerank server (PAKTON_RERANK_*)")
}

// clientFromEnv opens the model client whose configuration fromEnv reads
// from the environment, or returns nil when none is configured.
func clientFromEnv[Cfg, C any](fromEnv func() (Cfg, bool), open func(Cfg) (*C, error), what string) (*C, error) {
	cfg, ok := fromEnv()
	if !ok {
		return nil, nil
	}
	c, err := open(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return c, nil
}

// asEmbedder keeps a nil *embed.Client a nil interface.
func asEmbedder(c *embed.Client) search.Embedder {
	if c == nil {
		return nil
	}
	return c
}

// modelFlags are the flags that configure language models, shared by every
// command that may use one.
type modelFlags struct {
	cfg  llm.Config
	path *string
}

// addModelFlags registers --llm-url, --llm-model, --llm-key and
// --llm-config on fs.
func addModelFlags(fs *flag.FlagSet) *modelFlags {
	m := &modelFlags{}
	fs.StringVar(&m.cfg.BaseURL, "llm-url", "", "OpenAI-compatible server, e.g. http://localhost:11434/v1 (env PAKTON_LLM_URL)")
	fs.StringVar(&m.cfg.Model, "llm-model", "", "model name (env PAKTON_LLM_MODEL)")
	fs.StringVar(&m.cfg.APIKey, "llm-key", "", "API key (env PAKTON_LLM_API_KEY)")
	m.path = fs.String("llm-config", "", "model config file (default: $XDG_CONFIG_HOME/pakton/config.json when present)")
	return m
}

// roles loads the models configured by flags, environment and config file.
// A half-configured default (a URL without a model or the reverse) is an
// error, so a typo never silently turns models off.
func (m *modelFlags) roles() (llm.Roles, error) {
	roles, err := llm.Load(*m.path, llm.Roles{Default: m.cfg})
	if err != nil {
		return roles, err
	}
	if !roles.Configured() && (roles.Default.BaseURL != "" || roles.Default.Model != "") {
		return roles, fmt.Errorf("model server half configured (url %q, model %q): give both --llm-url and --llm-model, or neither", roles.Default.BaseURL, roles.Default.Model)
	}
	return roles, nil
}
