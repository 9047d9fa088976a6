package main

import (
	"fmt"

	"github.com/pakton/pakton/internal/embed"
	"github.com/pakton/pakton/internal/rerank"
	"github.com/pakton/pakton/internal/search"
)

// embedderFromEnv returns the embedding client configured by PAKTON_EMBED_*
// variables, or nil when none is configured (lexical search only).
func embedderFromEnv() (*embed.Client, error) {
	cfg, ok := embed.FromEnv()
	if !ok {
		return nil, nil
	}
	c, err := embed.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("embedding server (PAKTON_EMBED_*): %w", err)
	}
	return c, nil
}

// rerankerFromEnv returns the rerank client configured by PAKTON_RERANK_*
// variables, or nil when none is configured.
func rerankerFromEnv() (*rerank.Client, error) {
	cfg, ok := rerank.FromEnv()
	if !ok {
		return nil, nil
	}
	c, err := rerank.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("rerank server (PAKTON_RERANK_*): %w", err)
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
