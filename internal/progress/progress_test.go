package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// fakeClock returns a clock that advances by step on every call.
func fakeClock(step time.Duration) func() time.Time {
	t := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(step); return t }
}

func TestPlainOutputIsOneLinePerItem(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, "ingest", 12, 0)
	b.Update(1, 100, "a.txt (added)")
	b.Printf("a.pdf: failed: file is encrypted")
	b.Update(12, 200, "b.txt (added)")
	b.Finish()
	want := "ingest [ 1/12] a.txt (added)\na.pdf: failed: file is encrypted\ningest [12/12] b.txt (added)\n"
	if got := buf.String(); got != want {
		t.Errorf("plain output:\n%q\nwant\n%q", got, want)
	}
}

func TestTerminalRedrawsOneLine(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, "ingest", 4, 4000)
	b.tty = true
	b.width = 100
	b.now = fakeClock(time.Second)
	b.start = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	b.Update(1, 1000, "contracts/first.txt")
	b.Update(2, 2000, "contracts/second.txt")
	b.Printf("warning: something")
	b.Update(4, 4000, "contracts/last.txt")
	b.Finish()
	out := buf.String()
	if strings.Count(out, "\n") != 2 { // the message and the final line end
		t.Errorf("terminal output has %d newlines, want 2:\n%q", strings.Count(out, "\n"), out)
	}
	for _, want := range []string{"ingest 1/4  25%", "ETA ", "second.txt", "warning: something\n", "4/4 100%", "[####################]"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal output lacks %q:\n%q", want, out)
		}
	}
}

func TestLineFitsWidth(t *testing.T) {
	b := New(&bytes.Buffer{}, "ingest", 468, 0)
	b.width = 60
	b.now = fakeClock(time.Second)
	b.done = 10
	b.current = strings.Repeat("very-long-directory/", 10) + "contract.txt"
	line := b.Line()
	if n := len([]rune(line)); n > 60 {
		t.Errorf("line has %d characters, want ≤ 60: %q", n, line)
	}
	if !strings.HasSuffix(line, "contract.txt") {
		t.Errorf("line does not end with the file name: %q", line)
	}
}

func TestFormatting(t *testing.T) {
	tests := []struct{ got, want string }{
		{Bytes(512), "512 B"},
		{Bytes(1536), "1.5 KB"},
		{Bytes(27_052_000), "25.8 MB"},
		{Duration(75 * time.Second), "1:15"},
		{Duration(3*time.Hour + 5*time.Second), "3:00:05"},
		{Shorten("abcdef", 4), "…def"},
		{Shorten("abc", 4), "abc"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
