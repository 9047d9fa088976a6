// Package llm is pakton's model layer: a small chat interface, a client for
// OpenAI-compatible servers (Ollama, vLLM, llama.cpp server, LM Studio,
// OpenAI, Azure OpenAI), structured output with validation and repair, and
// per-report accounting. Nothing in pakton fakes a model: without a
// configured server, callers take their no-model path.
package llm

import (
	"context"
	"encoding/json"
)

// Message roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one chat message.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`   // assistant messages that call tools
	ToolCallID string     `json:"tool_call_id,omitempty"` // tool messages: the call answered
}

// ToolCall is a model's request to run a tool.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // JSON text, as the model wrote it
}

// ToolSpec describes a tool the model may call.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // JSON schema of the arguments object
}

// Schema asks for a JSON reply matching a JSON schema (structured output).
type Schema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	// Strict asks the server to enforce the schema exactly (OpenAI's
	// "strict": every property required, additionalProperties false).
	Strict bool `json:"strict,omitempty"`
}

// Request is one chat completion request.
type Request struct {
	Messages    []Message
	Tools       []ToolSpec
	Schema      *Schema  // nil: free text
	Temperature *float64 // nil: server default
	MaxTokens   int      // 0: server default
	// Stream, when set, receives the reply's text as it is generated.
	Stream func(delta string)
	// Step names the pipeline step for accounting ("archivist", "researcher", …).
	Step string
}

// Usage counts tokens of one or more calls.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Response is a model's reply.
type Response struct {
	Message      Message
	Usage        Usage
	FinishReason string
}

// Chat is a chat-completion model. Implementations must be safe for
// concurrent use and honour ctx cancellation.
type Chat interface {
	Complete(ctx context.Context, req Request) (*Response, error)
	// Model names the model, for reports and logs.
	Model() string
}
