package config

// Environment variables that configure the language model (read by
// internal/llm, which owns their precedence: flags > environment > config
// file). Per-role variables take the role in upper case, e.g.
// PAKTON_LLM_WRITER_MODEL; see EnvLLMRole.
const (
	// EnvLLMURL is the base URL of an OpenAI-compatible server, e.g.
	// http://localhost:11434/v1.
	EnvLLMURL = "PAKTON_LLM_URL"
	// EnvLLMModel names the chat model.
	EnvLLMModel = "PAKTON_LLM_MODEL"
	// EnvLLMAPIKey is the API key sent to the server (never logged).
	EnvLLMAPIKey = "PAKTON_LLM_API_KEY"
	// EnvLLMTimeout bounds one model call, as a Go duration ("90s") or seconds.
	EnvLLMTimeout = "PAKTON_LLM_TIMEOUT"
)

// EnvLLMRole returns the name of a per-role model variable: role is one of
// "archivist", "researcher", "interrogator", "writer" and suffix one of
// "MODEL", "URL", "API_KEY"; EnvLLMRole("writer", "MODEL") is
// "PAKTON_LLM_WRITER_MODEL".
func EnvLLMRole(role, suffix string) string {
	b := []byte("PAKTON_LLM_" + role + "_" + suffix)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
