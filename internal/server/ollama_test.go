package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pakton/pakton/examples"
	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/llm/ollamatest"
	"github.com/pakton/pakton/internal/report"
)

// The HTTP API's ask against a real Ollama server (PAKTON_OLLAMA=1) with
// the tiny random-weight chat model of internal/llm/ollamatest.

func ollamaEnv(t *testing.T, srv *ollamatest.Server, model string, retries int) *env {
	e := newEnv(t, func(c *Config) {
		c.Models = llm.Roles{Default: llm.Config{BaseURL: srv.URL + "/v1", Model: model, MaxRetries: retries}}
	})
	j := e.ingest("deal", e.admin, exampleFiles(t)...)
	for _, r := range j.Results {
		if r.Status != "added" {
			t.Fatalf("ingest: %+v", r)
		}
	}
	return e
}

// askStream posts a question and calls each for every event as it
// arrives, until each returns false or the stream ends.
func (e *env) askStream(ctx context.Context, collection string, body map[string]any, each func(sseEvent) bool) {
	e.t.Helper()
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, "POST", e.ts.URL+"/api/v1/collections/"+collection+"/ask", bytes.NewReader(b))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.admin)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		e.t.Fatalf("ask: %s", resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var ev sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.Event != "" && !each(ev) {
				return
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			ev.Event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			ev.Data += strings.TrimPrefix(line, "data: ")
		}
	}
}

// TestOllamaAskSSE streams an answer from the agents over the API: the
// progress of every agent, a source event per kept source, each quoting
// its document, then the report.
func TestOllamaAskSSE(t *testing.T) {
	srv := ollamatest.Start(t, ollamatest.Options{NumCtx: 32768})
	e := ollamaEnv(t, srv, srv.ChatModel, 0)
	texts := map[string]string{}
	for _, name := range []string{"master-services-agreement.txt", "distribution-agreement.txt", "mutual-nda.md"} {
		b, _ := examples.FS.ReadFile("contracts/" + name)
		texts[name] = strings.Join(strings.Fields(string(b)), " ")
	}

	var progress []string
	var sources []report.Source
	var rep *report.Report
	e.askStream(context.Background(), "deal", map[string]any{"question": "Who may terminate the distribution agreement, and how?", "max_turns": 1},
		func(ev sseEvent) bool {
			switch ev.Event {
			case "progress":
				progress = append(progress, decode[progressEvent](t, []byte(ev.Data)).Message)
			case "source":
				sources = append(sources, decode[report.Source](t, []byte(ev.Data)))
			case "report":
				r := decode[struct{ Report report.Report }](t, []byte(ev.Data)).Report
				rep = &r
			case "error":
				t.Logf("error event: %s", ev.Data)
			}
			return true
		})
	if rep == nil {
		t.Fatalf("no report; progress:\n%s", strings.Join(progress, "\n"))
	}
	all := strings.Join(progress, "\n")
	for _, want := range []string{"Archivist", "question 1/1", "Writer"} {
		if !strings.Contains(all, want) {
			t.Errorf("progress lacks %q:\n%s", want, all)
		}
	}
	if len(sources) != len(rep.Sources) {
		t.Errorf("%d source events for %d sources", len(sources), len(rep.Sources))
	}
	for _, s := range sources {
		if s.Status != report.StatusVerified && s.Status != report.StatusRecited {
			continue
		}
		if text, ok := texts[s.DocName]; ok && !strings.Contains(text, strings.Join(strings.Fields(s.Quote), " ")) {
			t.Errorf("source [%d] is %s but %q is not in %s", s.N, s.Status, s.Quote, s.DocName)
		}
	}
	t.Logf("report: %d sources, %d removed, verification %+v", len(rep.Sources), len(rep.Removed), rep.Verification)
}

// TestOllamaAskCancelAndServerDeath: a client that goes away cancels the
// model calls and frees the slot; a model server that dies mid-answer ends
// the stream with an error event naming it.
func TestOllamaAskCancelAndServerDeath(t *testing.T) {
	srv := ollamatest.Start(t, ollamatest.Options{NumCtx: 32768})
	if err := srv.Create(context.Background(), "endless", ollamatest.ChatSpec{Endless: true}, map[string]string{"num_ctx": "32768"}); err != nil {
		t.Fatal(err)
	}
	// The endless model never finishes a reply: every ask is in flight
	// until it is cancelled or its server dies. No retries, so the death
	// is reported at once.
	e := ollamaEnv(t, srv, "endless", -1)
	question := map[string]any{"question": "Who may terminate the distribution agreement?", "max_turns": 1}

	ctx, cancel := context.WithCancel(context.Background())
	before := srv.Requests(chatPath)
	e.askStream(ctx, "deal", question, func(ev sseEvent) bool {
		return ev.Event != "progress" || !strings.Contains(ev.Data, "Archivist")
	})
	// The Archivist's call is on its way: wait for Ollama to see it, then
	// hang up.
	waitUntil(t, "the model call", func() bool {
		return srv.Requests(chatPath) > before || strings.Contains(srv.Log(), "/v1/chat/completions")
	})
	cancel()
	// The slot is freed: MaxAsks is 1 by default in tests? Ask again and
	// see it start.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	started := make(chan struct{})
	go func() {
		e.askStream(ctx2, "deal", question, func(ev sseEvent) bool {
			if ev.Event == "progress" && strings.Contains(ev.Data, "Archivist") {
				close(started)
				return false
			}
			return !strings.Contains(ev.Data, "waiting for a free slot")
		})
	}()
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatal("a new question did not start after the first client went away")
	}
	cancel2()

	// The model server dies while the agents wait for it.
	var errEvent string
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.askStream(context.Background(), "deal", question, func(ev sseEvent) bool {
			if ev.Event == "error" {
				errEvent = ev.Data
			}
			return true
		})
	}()
	time.Sleep(2 * time.Second)
	srv.Kill()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the stream did not end after the model server died")
	}
	if !strings.Contains(errEvent, srv.URL) {
		t.Errorf("error event %q does not name the model server %s", errEvent, srv.URL)
	}
}

const chatPath = "/v1/chat/completions"

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
