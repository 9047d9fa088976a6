package server

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/pakton/pakton/internal/agent"
	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/jobs"
)

// Asking back (agent/clarify.go). An ask started with "ask_back": true may
// pause to ask the user something — which of the contracts an ambiguous
// name fits they mean, or the Archivist's clarifying question — and resume
// with the answer:
//
//  1. the stream's first event is "started" {"ask_id"};
//  2. a "question" event {"ask_id", "question", "choices": [{"id", "label"}]}
//     pauses the ask (GET …/asks/{id} then says "waiting" with the same
//     question, for a client that polls instead of reading the stream);
//  3. POST …/asks/{id}/answer {"answer": "<a choice's id, or free text>"}
//     resumes it ("answered" event); no answer within AskAnswerWait (or an
//     empty one) resumes it without: every candidate is searched.
//
// The ask lives in the memory of the server streaming it: on a cluster the
// answer goes to that server (the one the stream is connected to).

// DefaultAskAnswerWait bounds how long an ask waits for the user's answer.
const DefaultAskAnswerWait = 5 * time.Minute

// askRun is one running ask that may ask back.
type askRun struct {
	id, collection string
	events         chan askEvent // to the stream's writer
	answers        chan string

	mu       sync.Mutex
	state    string // "running", "waiting", "done"
	question *askQuestion
}

// askQuestion is what a paused ask asks.
type askQuestion struct {
	AskID    string         `json:"ask_id"`
	Question string         `json:"question"`
	Choices  []agent.Choice `json:"choices,omitempty"`
}

// askEvent is an event the clarifier hands to the stream's writer.
type askEvent struct {
	name string
	data any
}

// askRuns holds the server's running asks by id.
type askRuns struct {
	mu   sync.Mutex
	runs map[string]*askRun
}

func (a *askRuns) add(collection string) *askRun {
	run := &askRun{id: jobs.NewID(), collection: collection, events: make(chan askEvent, 4), answers: make(chan string, 1), state: "running"}
	a.mu.Lock()
	if a.runs == nil {
		a.runs = map[string]*askRun{}
	}
	a.runs[run.id] = run
	a.mu.Unlock()
	return run
}

func (a *askRuns) remove(run *askRun) {
	a.mu.Lock()
	delete(a.runs, run.id)
	a.mu.Unlock()
}

func (a *askRuns) get(collection, id string) *askRun {
	a.mu.Lock()
	defer a.mu.Unlock()
	run := a.runs[id]
	if run == nil || run.collection != collection {
		return nil // another collection's ask is as missing as none
	}
	return run
}

// askClarifier asks back through the stream (agent.Clarifier and
// agent.Chooser).
type askClarifier struct {
	run  *askRun
	wait time.Duration
}

func (c *askClarifier) Clarify(ctx context.Context, question string) (string, error) {
	return c.ask(ctx, askQuestion{AskID: c.run.id, Question: question})
}

func (c *askClarifier) Choose(ctx context.Context, question string, choices []agent.Choice) (string, error) {
	return c.ask(ctx, askQuestion{AskID: c.run.id, Question: question, Choices: choices})
}

// ask pauses the run with q until the answer is posted, the wait ends or
// ctx is done; no answer is "".
func (c *askClarifier) ask(ctx context.Context, q askQuestion) (string, error) {
	run := c.run
	run.mu.Lock()
	run.state, run.question = "waiting", &q
	run.mu.Unlock()
	select {
	case run.events <- askEvent{"question", q}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	timer := time.NewTimer(c.wait)
	defer timer.Stop()
	answer := ""
	select {
	case answer = <-run.answers:
	case <-timer.C:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	run.mu.Lock()
	run.state, run.question = "running", nil
	run.mu.Unlock()
	select {
	case run.events <- askEvent{"answered", map[string]string{"ask_id": run.id, "answer": answer}}:
	case <-ctx.Done():
	}
	return answer, nil
}

// getAsk is GET …/asks/{id}: a running ask's state and, while it waits,
// its question.
func (s *Server) getAsk(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	run := s.askRuns.get(r.PathValue("c"), r.PathValue("id"))
	if run == nil {
		fail(w, http.StatusNotFound, "ask %q is not running on this server (it finished, or never started)", r.PathValue("id"))
		return
	}
	run.mu.Lock()
	out := map[string]any{"id": run.id, "state": run.state}
	if run.question != nil {
		out["question"] = run.question
	}
	run.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// answerAsk is POST …/asks/{id}/answer {"answer"}: it resumes an ask
// waiting for the user.
func (s *Server) answerAsk(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	run := s.askRuns.get(r.PathValue("c"), r.PathValue("id"))
	if run == nil {
		fail(w, http.StatusNotFound, "ask %q is not running on this server (it finished, or never started)", r.PathValue("id"))
		return
	}
	var req struct {
		Answer string `json:"answer"`
	}
	if !s.readJSON(w, r, &req) {
		return
	}
	if len(req.Answer) > agent.MaxContextChars {
		fail(w, http.StatusBadRequest, "answer: %d bytes; the limit is %d", len(req.Answer), agent.MaxContextChars)
		return
	}
	run.mu.Lock()
	waiting := run.state == "waiting"
	run.mu.Unlock()
	if !waiting {
		fail(w, http.StatusConflict, "ask %q is not waiting for an answer", run.id)
		return
	}
	select {
	case run.answers <- req.Answer:
		writeJSON(w, http.StatusOK, map[string]string{"id": run.id, "state": "running"})
	default:
		fail(w, http.StatusConflict, "ask %q already has an answer", run.id)
	}
}
