package usecase

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/agent"
)

// InputError is an input of a question that a use case refuses: the field
// and why. Each face words it for its transport (the API's and the MCP
// server's texts differ); Error is the API's wording.
type InputError struct {
	// Field is "question", "context", "instructions" or "max_turns".
	Field string
	// Empty: the question is empty.
	Empty bool
	// Got is the field's length in characters, or the turns asked for;
	// Limit is the most allowed.
	Got, Limit int
}

func (e *InputError) Error() string {
	switch {
	case e.Empty:
		return "empty question"
	case e.Field == "max_turns":
		return fmt.Sprintf("max_turns %d: want 1 to %d", e.Got, e.Limit)
	}
	return fmt.Sprintf("%s: %d characters; the limit is %d", e.Field, e.Got, e.Limit)
}

// CheckAsk checks the inputs of a question, in this order: the question
// (white space trimmed) is not empty and is at most agent.MaxQuestionChars
// characters; context and instructions are at most agent.MaxContextChars
// each; maxTurns is 0 (the default) to turnLimit. It returns nil when all
// hold.
func CheckAsk(question, context, instructions string, maxTurns, turnLimit int) *InputError {
	question = strings.TrimSpace(question)
	if question == "" {
		return &InputError{Field: "question", Empty: true}
	}
	for _, f := range []struct {
		name, text string
		limit      int
	}{{"question", question, agent.MaxQuestionChars}, {"context", context, agent.MaxContextChars}, {"instructions", instructions, agent.MaxContextChars}} {
		if n := utf8.RuneCountInString(f.text); n > f.limit {
			return &InputError{Field: f.name, Got: n, Limit: f.limit}
		}
	}
	if maxTurns < 0 || maxTurns > turnLimit {
		return &InputError{Field: "max_turns", Got: maxTurns, Limit: turnLimit}
	}
	return nil
}
