package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/pakton/pakton/internal/auth"
)

// apiError is the body of every error response.
type apiError struct {
	Error string `json:"error"`
}

// writeJSON writes v as JSON with a status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// fail writes an error response.
func fail(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, apiError{Error: fmt.Sprintf(format, args...)})
}

// readJSON decodes a JSON request body of at most the configured size into
// v, rejecting unknown fields and trailing data. It writes the error
// response itself and returns false on failure.
func (s *Server) readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		fail(w, http.StatusUnsupportedMediaType, "want Content-Type application/json, not %q", ct)
		return false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, s.cfg.MaxJSONBytes))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("trailing data after the JSON object")
	}
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			fail(w, http.StatusRequestEntityTooLarge, "request body larger than %d bytes", mbe.Limit)
			return false
		}
		fail(w, http.StatusBadRequest, "bad JSON body: %v", err)
		return false
	}
	return true
}

// statusWriter records the status and size of a response for the access
// log. Unwrap lets http.ResponseController reach the connection (flush,
// deadlines) through it.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// accessLog logs one line per request: method, route pattern (never the
// raw path or query, which may hold document names or question text),
// status, duration, bytes and collection. Keys and bodies are never logged.
func (s *Server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		route := r.Pattern
		if route == "" {
			route = "(unmatched)"
		}
		attrs := []any{"method", r.Method, "route", route, "status", sw.status,
			"duration_ms", float64(time.Since(start).Microseconds()) / 1000, "bytes", sw.bytes}
		if c := r.PathValue("c"); c != "" {
			attrs = append(attrs, "collection", c)
		}
		s.log.Info("http", attrs...)
	})
}

// guard applies the browser-facing rules to every request: CORS (closed
// unless Config.CORSOrigin names the one origin allowed), refusal of
// cross-origin requests from any other origin (so a web page cannot drive a
// local no-auth server), a loopback Host in no-auth mode (against DNS
// rebinding), and defensive headers.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		if s.cfg.NoAuth {
			host, _, err := net.SplitHostPort(r.Host)
			if err != nil {
				host = r.Host
			}
			if !loopbackHost(strings.Trim(host, "[]")) {
				fail(w, http.StatusForbidden, "no-auth mode answers only requests addressed to a loopback host")
				return
			}
		}
		origin := r.Header.Get("Origin")
		switch {
		case origin == "" || sameOrigin(origin, r):
		case s.cfg.CORSOrigin != "" && origin == s.cfg.CORSOrigin:
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
				h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type")
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		default:
			fail(w, http.StatusForbidden, "cross-origin request from an origin this server does not allow")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// sameOrigin reports whether a browser's Origin header names this server.
func sameOrigin(origin string, r *http.Request) bool {
	o, ok := strings.CutPrefix(origin, "http://")
	if !ok {
		o, ok = strings.CutPrefix(origin, "https://")
	}
	return ok && o == r.Host
}

// authenticate returns the key a request carries in "Authorization: Bearer
// KEY", or an admin key in no-auth mode.
func (s *Server) authenticate(r *http.Request) (auth.Key, bool) {
	if s.cfg.NoAuth {
		return auth.Key{ID: "local", Name: "no-auth local mode", Admin: true}, true
	}
	h := r.Header.Get("Authorization")
	scheme, secret, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return auth.Key{}, false
	}
	return s.cfg.Keys.Lookup(r.Context(), strings.TrimSpace(secret))
}

// keyed is a handler that runs with the caller's key.
type keyed func(w http.ResponseWriter, r *http.Request, k auth.Key)

// authed requires a valid key. When the route has a {c} collection, the key
// must allow it; a key for another collection gets the same 404 as a
// collection that does not exist, so existence never leaks. The request
// counts once against the key's rate limit.
func (s *Server) authed(h keyed) http.Handler { return s.check(false, 1, h) }

// costly is authed for a route that counts cost times against the rate
// limit.
func (s *Server) costly(cost float64, h keyed) http.Handler { return s.check(false, cost, h) }

// admin requires an admin key.
func (s *Server) admin(h keyed) http.Handler { return s.check(true, 1, h) }

func (s *Server) check(admin bool, cost float64, h keyed) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k, ok := s.authenticate(r)
		// A request without a valid key is limited by its address and
		// counts once: it does no work beyond the lookup.
		spend := cost
		if !ok {
			spend = 1
		}
		if s.limited(w, s.caller(r, k, ok), spend) {
			return
		}
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="pakton"`)
			fail(w, http.StatusUnauthorized, "missing or invalid API key (send \"Authorization: Bearer KEY\")")
			return
		}
		if admin && !k.Admin {
			fail(w, http.StatusForbidden, "this needs an admin key")
			return
		}
		if c := r.PathValue("c"); c != "" && !k.Allows(c) {
			collectionNotFound(w, c)
			return
		}
		h(w, r.WithContext(auth.WithKey(r.Context(), k)), k)
	})
}

func collectionNotFound(w http.ResponseWriter, c string) {
	fail(w, http.StatusNotFound, "collection %q not found", c)
}
