package search

import "strings"

// A question is read part by part: its semicolons, colons, question and
// exclamation marks and line ends separate what names the contract
// ("Consider the Supply Agreement between A and B") from what is asked. A
// quotation is never split: a name written in quotation marks is one part
// even when it holds a colon or a question mark ("Consider "TickTick: To Do
// List with Reminder, Day Planner"'s privacy policy; …").

// partBreaks reports for each byte of text whether it ends a part.
func partBreaks(text string) []bool {
	out := make([]bool, len(text))
	quoted := false
	closing := ""
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\n':
			out[i] = true
			quoted = false
		case quoted:
			if strings.HasPrefix(text[i:], closing) {
				quoted = false
				i += len(closing) - 1
			}
		case c == '"' || strings.HasPrefix(text[i:], "\u201c"):
			open, cl := `"`, `"`
			if c != '"' {
				open, cl = "\u201c", "\u201d"
			}
			rest := text[i+len(open):]
			if end := strings.Index(rest, cl); end >= 0 && !strings.Contains(rest[:end], "\n") {
				quoted, closing = true, cl
			}
			i += len(open) - 1
		case c == ';' || c == ':' || c == '?' || c == '!':
			out[i] = true
		}
	}
	return out
}

// questionParts returns the question's non-empty parts, in order.
func questionParts(text string) []string {
	brk := partBreaks(text)
	var out []string
	start := 0
	for i := 0; i <= len(text); i++ {
		if i < len(text) && !brk[i] {
			continue
		}
		if i > start {
			out = append(out, text[start:i])
		}
		start = i + 1
	}
	return out
}
