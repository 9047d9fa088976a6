package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/search"
)

// Sharded search between app servers (search.Sharding). With Config.Shard
// set (and the collection service made with the same configuration:
// collection.Options{Shard: cfg.LoadShard(), Sharding: cfg.Sharding()}),
// this server is server K of N sharing a cluster: for every collection it
// holds whole the index segments i with i mod N = K and the stats files of
// the others (ingest.LoadOptions.Shard), plans every question itself, and
// asks the other servers to score their segments through POST
// /api/v1/collections/{c}/shard. A shard request carries the asking
// server's commit: a server that has another commit open loads the
// collection's current index first, and answers 503 when they still differ
// (the published commit is being replaced; the client asks again).

// ShardConfig makes a server one of several sharing a collection's index.
type ShardConfig struct {
	K, N int
	// Peers are the other servers' base URLs ("http://10.0.0.2:8443"), by
	// shard number; Peers[K] is this server's own (unused).
	Peers []string
	// Key is an admin API key the servers accept from each other.
	Key string
	// Timeout bounds one shard request (default 10 s).
	Timeout time.Duration
}

// validate checks a shard configuration.
func (c *ShardConfig) validate() error {
	if c.N < 1 || c.K < 0 || c.K >= c.N {
		return fmt.Errorf("server: shard %d of %d: want 0 ≤ K < N", c.K, c.N)
	}
	if len(c.Peers) != c.N {
		return fmt.Errorf("server: shard %d of %d: %d peer URLs, want one per server (%d)", c.K, c.N, len(c.Peers), c.N)
	}
	for k, p := range c.Peers {
		if k == c.K {
			continue
		}
		if u, err := url.Parse(p); err != nil || u.Scheme == "" || u.Host == "" {
			return fmt.Errorf("server: shard peer %d: %q is not a URL", k, p)
		}
	}
	return nil
}

// Sharding returns, for collection.Options.Sharding, the search.Sharding
// of each collection: the other servers reached over HTTP.
func (c *ShardConfig) Sharding() func(collection string) *search.Sharding {
	client := &http.Client{}
	return func(collection string) *search.Sharding { return c.sharding(collection, client) }
}

// LoadShard returns, for collection.Options.Shard, the segments this
// server holds whole.
func (c *ShardConfig) LoadShard() *ingest.Shard { return &ingest.Shard{K: c.K, N: c.N} }

// sharding returns the search.Sharding of collection c, reaching the
// other servers over HTTP.
func (c *ShardConfig) sharding(collection string, client *http.Client) *search.Sharding {
	peers := make([]search.Shard, c.N)
	for k, p := range c.Peers {
		if k != c.K {
			peers[k] = &httpShard{base: strings.TrimRight(p, "/"), collection: collection, key: c.Key, client: client, timeout: c.Timeout}
		}
	}
	return &search.Sharding{K: c.K, N: c.N, Peers: peers}
}

// httpShard is another server of a sharded collection.
type httpShard struct {
	base, collection, key string
	client                *http.Client
	timeout               time.Duration
}

func (h *httpShard) Rank(ctx context.Context, req *search.ShardRequest) (*search.ShardResponse, error) {
	timeout := h.timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	// The other server may be opening the same commit this one just
	// opened: ask again for a few seconds.
	for attempt := 0; ; attempt++ {
		r, err := http.NewRequestWithContext(ctx, "POST", h.base+"/api/v1/collections/"+url.PathEscape(h.collection)+"/shard", bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		r.Header.Set("Content-Type", "application/json")
		if h.key != "" {
			r.Header.Set("Authorization", "Bearer "+h.key)
		}
		resp, err := h.client.Do(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", h.base, err)
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", h.base, err)
		}
		if resp.StatusCode == http.StatusServiceUnavailable && attempt < 20 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(250 * time.Millisecond):
			}
			continue
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%s: %s: %s", h.base, resp.Status, strings.TrimSpace(string(data)))
		}
		var out search.ShardResponse
		if err := json.Unmarshal(data, &out); err != nil {
			return nil, fmt.Errorf("%s: %w", h.base, err)
		}
		return &out, nil
	}
}

// shard answers POST …/shard: score this server's segments for a search
// another server planned.
func (s *Server) shard(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	c := r.PathValue("c")
	if s.cfg.Shard == nil {
		fail(w, http.StatusNotFound, "this server is not a shard of a sharded collection")
		return
	}
	var req search.ShardRequest
	if !s.readJSON(w, r, &req) {
		return
	}
	sn, err := s.coll.Get(r.Context(), c)
	if err != nil {
		s.storeErr(w, r, "load index", err)
		return
	}
	if commit, _ := sn.Index.Snapshot().Commit(); commit != req.Commit {
		// The asking server may have opened a newer commit: open the
		// current one (the store may not have changed: a merge).
		if nsn, err := s.coll.Reopen(r.Context(), c); err == nil && nsn != nil {
			sn = nsn
		}
	}
	res, err := sn.Index.ShardRank(r.Context(), &req)
	if errors.Is(err, search.ErrShardCommit) {
		fail(w, http.StatusServiceUnavailable, "%v", err)
		return
	}
	if err != nil {
		fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}
