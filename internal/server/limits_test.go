package server

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/agent"
	"github.com/pakton/pakton/internal/search"
)

// Queries and questions are capped as MCP caps them: one caller's
// megabyte-long queries made every other search ~8x slower.
func TestQueryLengthLimits(t *testing.T) {
	e := newEnv(t, nil)
	e.ingest("deals", e.admin, file{"msa.txt", contract("Globex", "two years")})
	long := strings.Repeat("liability ", search.MaxQueryChars/10+1)
	tests := []struct {
		name, path string
		body       map[string]any
		want       int
		wantMsg    string
	}{
		{"search at the limit", "/api/v1/collections/deals/search", map[string]any{"query": long[:search.MaxQueryChars]}, http.StatusOK, ""},
		{"search past the limit", "/api/v1/collections/deals/search", map[string]any{"query": long}, http.StatusBadRequest, "query: 20"},
		{"ask question past the limit", "/api/v1/collections/deals/ask", map[string]any{"question": long}, http.StatusBadRequest, "question: 20"},
		{"ask context past the limit", "/api/v1/collections/deals/ask", map[string]any{"question": "cap?", "context": strings.Repeat("x", agent.MaxContextChars+1)}, http.StatusBadRequest, "context: 20001"},
		{"ask instructions past the limit", "/api/v1/collections/deals/ask", map[string]any{"question": "cap?", "instructions": strings.Repeat("x", agent.MaxContextChars+1)}, http.StatusBadRequest, "instructions: 20001"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := e.json("POST", tc.path, e.admin, tc.body)
			if code != tc.want || !strings.Contains(string(body), tc.wantMsg) {
				t.Fatalf("%d %s, want %d with %q", code, body, tc.want, tc.wantMsg)
			}
		})
	}
}

// A client holding connections open gets closed sockets past its limit;
// other clients and its own existing connections are still served, and a
// closed connection frees its slot.
func TestConnectionLimitPerClient(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := newConnLimitListener(raw, 3, 100, nil)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })}
	go srv.Serve(ln)
	defer srv.Close()

	dial := func() net.Conn {
		c, err := net.Dial("tcp", raw.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// served reports whether a request on c is answered.
	served := func(c net.Conn) bool {
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			return false
		}
		buf := make([]byte, 64)
		n, _ := io.ReadAtLeast(c, buf, 12)
		return strings.HasPrefix(string(buf[:n]), "HTTP/1.1 200")
	}
	var held []net.Conn
	for range 3 {
		held = append(held, dial())
	}
	for i, c := range held {
		if !served(c) {
			t.Fatalf("connection %d within the limit was not served", i)
		}
	}
	extra := dial()
	if served(extra) {
		t.Fatal("a fourth connection from the same client was served")
	}
	extra.Close()
	held[0].Close()
	// The freed slot is released once the server sees the close.
	ok := false
	for range 50 {
		c := dial()
		if served(c) {
			ok = true
			c.Close()
			break
		}
		c.Close()
		time.Sleep(20 * time.Millisecond)
	}
	if !ok {
		t.Fatal("a closed connection did not free its slot")
	}
	for _, c := range held[1:] {
		c.Close()
	}
}

func TestConnectionLimitTotal(t *testing.T) {
	l := &connLimitListener{perClient: -1, total: 2, byKey: map[string]int{}}
	if !l.admit("a") || !l.admit("b") {
		t.Fatal("within the total limit refused")
	}
	if l.admit("c") {
		t.Fatal("past the total limit admitted")
	}
	l.release("a")
	if !l.admit("c") {
		t.Fatal("released slot not reused")
	}
}
