package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/pakton/pakton/internal/agent"
	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/collection"
	"github.com/pakton/pakton/internal/jobs"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/usecase"
)

// askRequest is the body of POST …/ask.
type askRequest struct {
	Question     string   `json:"question"`
	Context      string   `json:"context"`
	Instructions string   `json:"instructions"`
	Docs         []string `json:"docs"`
	MaxTurns     int      `json:"max_turns"`
	// Evidence asks for an evidence report even when a model is configured.
	Evidence bool `json:"evidence"`
	// NoRoute searches every document even when the question seems to name
	// a contract.
	NoRoute bool `json:"no_route"`
	// IncludeCorrespondence counts cover e-mails, letters and indexes
	// among the contracts a deal-room question is answered for.
	IncludeCorrespondence bool `json:"include_correspondence"`
	// AskBack lets the ask pause to ask the user a question (askback.go):
	// which contract an ambiguous name means, or the Archivist's clarifying
	// question. Off, it never waits: every candidate is searched.
	AskBack bool `json:"ask_back"`
}

// maxTurnsLimit bounds max_turns a client may ask for.
const maxTurnsLimit = 20

// savedReport is a report as stored and served.
type savedReport struct {
	ID         string         `json:"id"`
	Collection string         `json:"collection"`
	Created    time.Time      `json:"created"`
	Report     *report.Report `json:"report"`
}

// reportSummary is one line of GET …/reports.
type reportSummary struct {
	ID       string      `json:"id"`
	Created  time.Time   `json:"created"`
	Question string      `json:"question"`
	Title    string      `json:"title"`
	Mode     report.Mode `json:"mode"`
	Complete bool        `json:"complete"`
}

// sse writes server-sent events. Each write pushes the connection's write
// deadline forward, so a stream may last as long as it keeps sending while a
// stalled client is still cut off.
type sse struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

const sseWriteWindow = 30 * time.Second

func (e *sse) send(event string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	data := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	e.rc.SetWriteDeadline(time.Now().Add(sseWriteWindow))
	if _, err := fmt.Fprintf(e.w, "event: %s\ndata: %s\n\n", event, data); err != nil {
		return err
	}
	return e.rc.Flush()
}

func (e *sse) comment(text string) error {
	e.rc.SetWriteDeadline(time.Now().Add(sseWriteWindow))
	if _, err := fmt.Fprintf(e.w, ": %s\n\n", text); err != nil {
		return err
	}
	return e.rc.Flush()
}

// ask answers a question as a stream of server-sent events: "progress"
// lines while the agents (or the evidence search) work, one "source" per
// source of the report, then "report" with the saved report, or "error".
func (s *Server) ask(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	c := r.PathValue("c")
	var req askRequest
	if !s.readJSON(w, r, &req) || !checkAsk(w, &req) {
		return
	}
	ids, sn, ok := s.answeringIn(w, r, c, req.Docs)
	if !ok {
		return
	}

	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.AskTimeout)
	defer cancel()
	defer context.AfterFunc(s.streams, cancel)()

	ev, ok := openStream(w, "pakton ask")
	if !ok || !s.takeAskSlot(ctx, ev) {
		return
	}
	defer func() { <-s.asks }()

	// An ask that may ask back is registered, so its answer can be posted.
	var run *askRun
	var clarifier agent.Clarifier
	var questions chan askEvent // nil: never receives
	if req.AskBack {
		run = s.askRuns.add(c)
		defer s.askRuns.remove(run)
		clarifier = &askClarifier{run: run, wait: s.cfg.AskAnswerWait}
		questions = run.events
		if ev.send("started", map[string]string{"ask_id": run.id}) != nil {
			return
		}
	}

	// The agents run in their own goroutine; this one writes the stream.
	progress := make(chan string, 64)
	done := make(chan askOutcome, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("ask: panic", "panic", p)
				done <- askOutcome{nil, fmt.Errorf("internal error")}
			}
		}()
		say := func(msg string) {
			select {
			case progress <- msg:
			default: // a slow client loses progress lines, never the report
			}
		}
		done <- s.answer(ctx, req, ids, sn, clarifier, say)
	}()

	keepalive := time.NewTicker(15 * time.Second)
	defer keepalive.Stop()
	var out askOutcome
wait:
	for {
		select {
		case msg := <-progress:
			if ev.send("progress", progressEvent{msg}) != nil {
				cancel()
			}
		case <-keepalive.C:
			if ev.comment("keepalive") != nil {
				cancel()
			}
		case q := <-questions:
			if ev.send(q.name, q.data) != nil {
				cancel()
			}
		case out = <-done:
			break wait
		}
	}
	for len(progress) > 0 {
		ev.send("progress", progressEvent{<-progress})
	}
	s.sendAnswer(r.Context(), ev, c, out)
}

// checkAsk checks an ask request's question and bounds
// (usecase.CheckAsk), answering 400 when one is wrong.
func checkAsk(w http.ResponseWriter, req *askRequest) bool {
	req.Question = strings.TrimSpace(req.Question)
	if ierr := usecase.CheckAsk(req.Question, req.Context, req.Instructions, req.MaxTurns, maxTurnsLimit); ierr != nil {
		fail(w, http.StatusBadRequest, "%s", ierr.Error())
		return false
	}
	return true
}

// openStream starts a response of server-sent events with a comment naming
// the stream; false when the client is gone.
func openStream(w http.ResponseWriter, name string) (*sse, bool) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	ev := &sse{w: w, rc: http.NewResponseController(w)}
	ev.rc.SetReadDeadline(time.Time{})
	return ev, ev.comment(name) == nil
}

// takeAskSlot waits, bounded, for a free slot to answer in; the caller
// gives it back (<-s.asks) when it took one.
func (s *Server) takeAskSlot(ctx context.Context, ev *sse) bool {
	select {
	case s.asks <- struct{}{}:
		return true
	default:
	}
	ev.send("progress", progressEvent{"waiting for a free slot (other questions are being answered)"})
	wait := time.NewTimer(s.cfg.AskQueueWait)
	defer wait.Stop()
	select {
	case s.asks <- struct{}{}:
		return true
	case <-wait.C:
		ev.send("error", apiError{"the server is busy answering other questions; try again later"})
		return false
	case <-ctx.Done():
		return false
	}
}

// askOutcome is what answering a question gave.
type askOutcome struct {
	rep *report.Report
	err error
}

// answer answers req in snapshot sn (usecase.Asking: an evidence report
// without a model, or when asked for; else the agents').
func (s *Server) answer(ctx context.Context, req askRequest, ids []string, sn *collection.Snapshot, clarifier agent.Clarifier, say func(string)) askOutcome {
	lib := sn.Library()
	lib.Progress = say
	turns := req.MaxTurns
	if turns == 0 {
		turns = s.cfg.MaxTurns
	}
	asking := usecase.Asking{Models: s.models, External: s.cfg.External}
	rep, err := asking.Answer(ctx, lib, usecase.Question{
		Request: agent.Request{Question: req.Question, Context: req.Context, Instructions: req.Instructions, Docs: ids, NoRoute: req.NoRoute, IncludeCorrespondence: req.IncludeCorrespondence},
		Route:   true, Evidence: req.Evidence, MaxTurns: turns,
		Progress: say, Announce: say, Clarifier: clarifier,
	})
	return askOutcome{rep, err}
}

// sendAnswer saves the report of out and sends its sources and itself, or
// the error that left no report.
func (s *Server) sendAnswer(ctx context.Context, ev *sse, c string, out askOutcome) {
	if out.rep == nil {
		msg := "the question could not be answered"
		switch {
		case errors.Is(out.err, context.DeadlineExceeded):
			msg = "the answer took longer than the server allows"
		case errors.Is(out.err, context.Canceled):
			msg = "cancelled"
		case out.err != nil:
			msg = out.err.Error()
		}
		ev.send("error", apiError{msg})
		return
	}
	saved := savedReport{ID: jobs.NewID(), Collection: c, Created: time.Now().UTC(), Report: out.rep}
	if err := s.saveReport(ctx, saved); err != nil {
		s.log.Error("ask: cannot save report", "collection", c, "err", err)
		saved.ID = ""
	}
	for _, src := range out.rep.Sources {
		if src.Pages == nil {
			src.Pages = []int{}
		}
		ev.send("source", src)
	}
	raw, err := stableJSON(out.rep)
	if err != nil {
		ev.send("error", apiError{"cannot encode the report"})
		return
	}
	ev.send("report", map[string]any{"id": saved.ID, "collection": c, "created": saved.Created, "report": raw})
	if out.err != nil {
		ev.send("error", apiError{"stopped early; the report is the best draft so far: " + out.err.Error()})
	}
}

type progressEvent struct {
	Message string `json:"message"`
}

func (s *Server) listReports(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	c := r.PathValue("c")
	pq, ok := parsePage(w, r)
	if !ok {
		return
	}
	if _, err := s.st.Generation(r.Context(), c); err != nil {
		s.storeErr(w, r, "list reports", err)
		return
	}
	srs, err := s.reports(r.Context(), c)
	if err != nil {
		s.internal(w, "list reports", err)
		return
	}
	out := []reportSummary{}
	for _, sr := range srs {
		if !jobs.ValidID(sr.ID) {
			continue
		}
		out = append(out, reportSummary{ID: sr.ID, Created: sr.Created, Question: sr.Report.Question,
			Title: sr.Report.Title, Mode: sr.Report.Mode, Complete: sr.Report.Complete})
	}
	key := func(r reportSummary) string { return timeKey(r.Created, r.ID) }
	slices.SortFunc(out, func(a, b reportSummary) int { return strings.Compare(key(b), key(a)) })
	page, next := pageOf(out, key, true, pq)
	writeJSON(w, http.StatusOK, pageResponse("reports", page, next))
}

func (s *Server) getReport(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	c, id := r.PathValue("c"), r.PathValue("id")
	if _, err := s.st.Generation(r.Context(), c); err != nil {
		s.storeErr(w, r, "get report", err)
		return
	}
	sr, err := s.readReport(r.Context(), c, id)
	if errors.Is(err, store.ErrNotFound) {
		fail(w, http.StatusNotFound, "report %q not found", id)
		return
	}
	if err != nil {
		s.internal(w, "get report", err)
		return
	}
	raw, err := stableJSON(sr.Report)
	if err != nil {
		s.internal(w, "get report", err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": sr.ID, "collection": sr.Collection, "created": sr.Created, "report": raw})
}

// stableJSON encodes a report in report.WriteJSON's stable shape (lists as
// [] rather than null) on one line.
func stableJSON(rep *report.Report) (json.RawMessage, error) {
	var buf strings.Builder
	if err := report.WriteJSON(&buf, rep); err != nil {
		return nil, err
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(buf.String())); err != nil {
		return nil, err
	}
	return compact.Bytes(), nil
}
