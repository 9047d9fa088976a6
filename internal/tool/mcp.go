package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pakton/pakton/internal/llm"
)

const (
	defaultMCPTimeout        = 60 * time.Second
	defaultMCPConnectTimeout = 30 * time.Second
	maxMCPText               = 64 << 10 // bytes of tool output passed to the model
	maxToolName              = 64       // OpenAI-compatible APIs reject longer function names
)

// MCPServer configures one MCP server whose tools the Researcher may call:
// a local command speaking MCP over stdio, or a streamable HTTP endpoint.
type MCPServer struct {
	// Name identifies the server; its tools are named mcp_<name>_<tool>.
	Name string `json:"name"`
	// Command and Args start a stdio server, e.g. "npx" with
	// ["-y", "@modelcontextprotocol/server-filesystem", "/srv/docs"].
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	// Env adds variables to the command's environment (which inherits
	// pakton's). Dir is its working directory.
	Env map[string]string `json:"env,omitempty"`
	Dir string            `json:"dir,omitempty"`
	// URL is a streamable HTTP endpoint, e.g. "http://localhost:8080/mcp".
	URL string `json:"url,omitempty"`
	// Headers are sent with every HTTP request, e.g. Authorization.
	Headers map[string]string `json:"headers,omitempty"`
	// Timeout bounds one tool call (default 60s).
	Timeout Duration `json:"timeout,omitempty"`
}

// ConnectMCP starts or connects to each server, lists its tools and
// returns them as pakton tools. The close function ends every session (and
// stops stdio servers). If any server fails, the sessions already opened
// are closed and the error names the server.
//
// Values in Env and Headers may refer to pakton's environment as ${NAME},
// so secrets need not be written in the config file.
func ConnectMCP(ctx context.Context, servers []MCPServer) ([]Tool, func() error, error) {
	var (
		tools    []Tool
		sessions []*mcp.ClientSession
		names    = map[string]bool{}
	)
	closeAll := func() error {
		var errs []error
		for _, s := range sessions {
			errs = append(errs, s.Close())
		}
		sessions = nil
		return errors.Join(errs...)
	}
	for _, srv := range servers {
		transport, stderr, err := mcpTransport(srv)
		if err != nil {
			_ = closeAll()
			return nil, func() error { return nil }, err
		}
		session, ts, err := connectMCP(ctx, srv, transport, names)
		if err != nil {
			if tail := stderr.String(); tail != "" {
				err = fmt.Errorf("%w; server stderr: %s", err, tail)
			}
			_ = closeAll()
			return nil, func() error { return nil }, err
		}
		sessions = append(sessions, session)
		tools = append(tools, ts...)
	}
	var once sync.Once
	var closeErr error
	return tools, func() error {
		once.Do(func() { closeErr = closeAll() })
		return closeErr
	}, nil
}

// mcpTransport builds the transport of srv. For a command it also returns
// a buffer holding the end of the server's stderr, for error messages.
func mcpTransport(srv MCPServer) (mcp.Transport, *tailBuffer, error) {
	stderr := &tailBuffer{max: 2048}
	if strings.TrimSpace(srv.Name) == "" {
		return nil, stderr, errors.New("mcp server: no name")
	}
	switch {
	case srv.Command != "" && srv.URL != "":
		return nil, stderr, fmt.Errorf("mcp server %q: set command or url, not both", srv.Name)
	case srv.Command != "":
		cmd := exec.Command(srv.Command, srv.Args...)
		cmd.Dir = srv.Dir
		cmd.Env = os.Environ()
		for k, v := range srv.Env {
			cmd.Env = append(cmd.Env, k+"="+expandEnvRefs(v))
		}
		cmd.Stderr = stderr
		return &mcp.CommandTransport{Command: cmd}, stderr, nil
	case srv.URL != "":
		endpoint, err := checkHTTPURL("mcp server "+srv.Name, srv.URL)
		if err != nil {
			return nil, stderr, err
		}
		headers := make(http.Header, len(srv.Headers))
		for k, v := range srv.Headers {
			headers.Set(k, expandEnvRefs(v))
		}
		return &mcp.StreamableClientTransport{
			Endpoint:   endpoint,
			HTTPClient: &http.Client{Transport: headerTransport{headers, http.DefaultTransport}},
			// pakton only calls tools; it needs no server-initiated messages.
			DisableStandaloneSSE: true,
		}, stderr, nil
	}
	return nil, stderr, fmt.Errorf("mcp server %q: needs a command (stdio) or a url (streamable HTTP)", srv.Name)
}

// connectMCP opens a session over transport and wraps the server's tools.
// names holds the tool names already taken, across servers.
func connectMCP(ctx context.Context, srv MCPServer, transport mcp.Transport, names map[string]bool) (*mcp.ClientSession, []Tool, error) {
	cctx, cancel := context.WithTimeout(ctx, defaultMCPConnectTimeout)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "pakton", Version: "1"}, nil)
	session, err := client.Connect(cctx, transport, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("mcp server %q: connect: %w", srv.Name, redactHeaders(err, srv.Headers))
	}
	var tools []Tool
	for t, err := range session.Tools(cctx, nil) {
		if err != nil {
			session.Close()
			return nil, nil, fmt.Errorf("mcp server %q: list tools: %w", srv.Name, redactHeaders(err, srv.Headers))
		}
		schema, err := mcpInputSchema(t.InputSchema)
		if err != nil {
			session.Close()
			return nil, nil, fmt.Errorf("mcp server %q: tool %q: %w", srv.Name, t.Name, err)
		}
		desc := t.Description
		if desc == "" {
			desc = t.Title
		}
		name := mcpToolName(srv.Name, t.Name, names)
		tools = append(tools, &mcpTool{
			session: session,
			server:  srv.Name,
			remote:  t.Name,
			headers: srv.Headers,
			timeout: srv.Timeout.or(defaultMCPTimeout),
			spec: llm.ToolSpec{
				Name: name,
				Description: strings.TrimSpace(desc + "\n(Tool " + t.Name + " of MCP server " + srv.Name +
					"; " + externalSourceNotice + ".)"),
				Parameters: schema,
			},
		})
	}
	return session, tools, nil
}

// mcpInputSchema returns a tool's input schema as JSON, an empty object
// schema when the server gave none.
func mcpInputSchema(s any) (json.RawMessage, error) {
	if s == nil {
		return json.RawMessage(`{"type":"object","properties":{}}`), nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	if string(b) == "null" || string(b) == "{}" {
		return json.RawMessage(`{"type":"object","properties":{}}`), nil
	}
	return b, nil
}

var unsafeNameRE = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

// mcpToolName names a server's tool mcp_<server>_<tool>, with characters
// outside [a-zA-Z0-9_-] replaced by "_" and at most 64 characters; a name
// that is too long or already taken ends in a hash of the originals
// instead. The name is recorded in taken.
func mcpToolName(server, tool string, taken map[string]bool) string {
	name := "mcp_" + unsafeNameRE.ReplaceAllString(server, "_") + "_" + unsafeNameRE.ReplaceAllString(tool, "_")
	if len(name) > maxToolName || taken[name] {
		h := fnv.New32a()
		h.Write([]byte(server + "\x00" + tool))
		suffix := fmt.Sprintf("_%08x", h.Sum32())
		name = name[:min(len(name), maxToolName-len(suffix))] + suffix
	}
	taken[name] = true
	return name
}

// mcpTool is one tool of a connected MCP server.
type mcpTool struct {
	session *mcp.ClientSession
	server  string
	remote  string // the tool's name on its server
	headers map[string]string
	timeout time.Duration
	spec    llm.ToolSpec
}

// Spec returns the server's description and input schema under pakton's
// name for the tool.
func (t *mcpTool) Spec() llm.ToolSpec { return t.spec }

// Call calls the tool on its server and returns its text content. A result
// the server marks as an error is returned as an error carrying the
// server's message.
func (t *mcpTool) Call(ctx context.Context, args json.RawMessage) (Result, error) {
	if len(strings.TrimSpace(string(args))) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if !json.Valid(args) {
		return Result{}, fmt.Errorf("mcp server %q, tool %q: arguments are not valid JSON", t.server, t.remote)
	}
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	res, err := t.session.CallTool(ctx, &mcp.CallToolParams{Name: t.remote, Arguments: args})
	if err != nil {
		return Result{}, fmt.Errorf("mcp server %q, tool %q: %w", t.server, t.remote, redactHeaders(err, t.headers))
	}
	text := mcpContentText(res)
	if res.IsError {
		if text == "" {
			text = "the tool reported an error"
		}
		return Result{}, fmt.Errorf("mcp server %q, tool %q: %s", t.server, t.remote, text)
	}
	return Result{Text: text, External: true}, nil
}

// mcpContentText joins a result's content as text: text parts verbatim,
// embedded text resources by their text, other parts as a short note; the
// structured content when there is no content at all.
func mcpContentText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch x := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, x.Text)
		case *mcp.EmbeddedResource:
			if x.Resource != nil && x.Resource.Text != "" {
				parts = append(parts, x.Resource.Text)
			} else if x.Resource != nil {
				parts = append(parts, fmt.Sprintf("[resource %s (%s)]", x.Resource.URI, x.Resource.MIMEType))
			}
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link %s %s]", x.Name, x.URI))
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image, %s, %d bytes]", x.MIMEType, len(x.Data)))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio, %s, %d bytes]", x.MIMEType, len(x.Data)))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	text := strings.Join(parts, "\n")
	if len(text) > maxMCPText {
		text = strings.ToValidUTF8(text[:maxMCPText], "") + "\n(output truncated)"
	}
	return text
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	headers http.Header
	next    http.RoundTripper
}

func (h headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		req = req.Clone(req.Context())
		for k, vs := range h.headers {
			req.Header[k] = vs
		}
	}
	return h.next.RoundTrip(req)
}

// redactHeaders hides configured header values (tokens) in err's message.
func redactHeaders(err error, headers map[string]string) error {
	for _, v := range headers {
		v = expandEnvRefs(v)
		if len(v) >= 8 {
			err = redact(err, v)
			// "Bearer xyz": also hide the token alone.
			if _, tok, ok := strings.Cut(v, " "); ok && len(tok) >= 8 {
				err = redact(err, tok)
			}
		}
	}
	return err
}

var envRefRE = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expandEnvRefs replaces ${NAME} with the environment variable's value; a
// lone "$" is left alone, so tokens containing "$" survive.
func expandEnvRefs(s string) string {
	return envRefRE.ReplaceAllStringFunc(s, func(m string) string {
		return os.Getenv(m[2 : len(m)-1])
	})
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.max {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.max:]...)
	}
	return len(p), nil
}

// String returns the kept bytes, trimmed, as valid UTF-8.
func (b *tailBuffer) String() string {
	if b == nil {
		return ""
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.TrimSpace(strings.ToValidUTF8(string(b.buf), ""))
}
