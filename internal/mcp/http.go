package mcp

import (
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pakton/pakton/internal/store"
)

// SessionTimeout closes an HTTP session idle this long.
const SessionTimeout = 30 * time.Minute

// HTTPHandler serves MCP over streamable HTTP for many collections.
//
// Every HTTP request is bound to the collection b.Collection returns for the
// request's context (set by the API server's authorization with
// WithCollection) and is served by that collection's own MCP server and
// session table. A server built for collection A answers only about A,
// whatever the request asks, and a session id issued under A is unknown to
// B's handler: a request authorized for B that presents A's session id is
// answered 404 like any unknown session. A request b refuses is answered
// 403 (404 for a collection that does not exist).
func HTTPHandler(b Backend) http.Handler {
	return &httpHandler{b: b, byName: map[string]http.Handler{}}
}

type httpHandler struct {
	b      Backend
	mu     sync.Mutex
	byName map[string]http.Handler
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name, err := h.b.Collection(r.Context())
	if err != nil {
		code := http.StatusForbidden
		if errors.Is(err, store.ErrNotFound) {
			code = http.StatusNotFound
		}
		http.Error(w, err.Error(), code)
		return
	}
	h.handler(name).ServeHTTP(w, r)
}

// handler returns the streamable HTTP handler of one collection, creating
// it on first use.
func (h *httpHandler) handler(name string) http.Handler {
	h.mu.Lock()
	defer h.mu.Unlock()
	if sh, ok := h.byName[name]; ok {
		return sh
	}
	srv := NewServer(boundBackend{Backend: h.b, name: name})
	sh := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return srv },
		&mcpsdk.StreamableHTTPOptions{SessionTimeout: SessionTimeout, Logger: slog.Default().With("component", "mcp", "collection", name)})
	h.byName[name] = sh
	return sh
}
