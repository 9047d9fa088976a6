package mcp

import (
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/usecase"
)

// ask's inputs are checked by the use case and worded for an assistant.
func TestAskInputErrors(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	for _, c := range []struct {
		in   AskInput
		want string
	}{
		{AskInput{Question: " "}, "question is empty"},
		{AskInput{Question: long(MaxQuery + 1)}, "question is longer than 2000 characters"},
		{AskInput{Question: "q", Context: long(MaxContext + 1)}, "context is longer than 20000 characters"},
		{AskInput{Question: "q", Instructions: long(MaxContext + 1)}, "instructions are longer than 20000 characters"},
		{AskInput{Question: "q", MaxTurns: 11}, "max_turns = 11: want 1 to 10"},
	} {
		e := usecase.CheckAsk(c.in.Question, c.in.Context, c.in.Instructions, c.in.MaxTurns, MaxTurns)
		if e == nil || askInputError(e).Error() != c.want {
			t.Errorf("%+.40v: %v, want %q", c.in, e, c.want)
		}
	}
}
