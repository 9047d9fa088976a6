// Package modelpass is the model-backed pass of a review: a review.Refiner
// that shows a chat model the offline finder's best candidate passages for
// each provision, asks for the passages that hold it (or "Not found") and
// its risk questions, and keeps only what it can verify against the
// contract. It is apart from internal/review so that the review's domain —
// playbook, detectors and training, the run, table and decisions — imports
// neither llm nor tool: a review runs, is measured and is trained with no
// model server; this package is the one place a model refines it.
package modelpass

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"

	"github.com/pakton/pakton/internal/atomicfile"
	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/parallel"
)

// Pass is the model pass of a review (a Refiner): for every provision of
// a contract it shows a chat model the offline finder's best candidate
// passages, asks for the passages that hold the provision verbatim or "Not
// found", follows up once asking what was missed, asks the provision's risk
// questions of a found cell, and verifies every quotation against the
// contract. Answers are cached per cell (model_cache.go). It is safe for
// concurrent use.
type Pass struct {
	Chat     llm.Chat
	Reviewer *review.Reviewer
	// CacheDir keeps each cell's answers; empty caches nothing.
	CacheDir string
	// Shown is how many candidate passages the first prompt shows
	// (default 10); More how many further ones the follow-up shows
	// (default 10).
	Shown, More int
	// Parallel bounds the provisions of one contract asked at once
	// (default 2).
	Parallel int
	// MaxTokens bounds each reply (default 2048); it is also the dry run's
	// completion-token bound per call.
	MaxTokens int
	// Logger receives warnings (default slog.Default()).
	Logger *slog.Logger
	// Progress, when set, is called after each cell the pass answers (from
	// several goroutines at once: it must be safe for concurrent use). A
	// contract takes a few model calls per provision, so a face can show
	// movement within a contract.
	Progress func(CellProgress)

	spent struct {
		calls, prompt, completion, cached atomic.Int64
	}
}

// CellProgress is how far the model pass is through one contract.
type CellProgress struct {
	Doc       string `json:"doc"`
	Provision string `json:"provision"` // the cell just answered
	Done      int    `json:"done"`      // cells of the contract answered so far
	Total     int    `json:"total"`
	Cached    bool   `json:"cached"` // answered from the cache
}

// New returns the model pass of rev's playbook asking chat, caching
// in cacheDir (empty: no cache).
func New(chat llm.Chat, rev *review.Reviewer, cacheDir string) (*Pass, error) {
	if chat == nil || rev == nil {
		return nil, errors.New("review: the model pass needs a model and a reviewer")
	}
	// Answers cut short by a killed run. The cache may be shared with
	// reviews running now: only files older than any write are theirs.
	if cacheDir != "" {
		atomicfile.RemoveStale(cacheDir, time.Minute)
	}
	return &Pass{Chat: chat, Reviewer: rev, CacheDir: cacheDir}, nil
}

// Default sizes of the model pass.
const (
	defaultShown     = 10
	defaultMore      = 10
	defaultParallel  = 2
	defaultMaxTokens = 2048
)

func (m *Pass) shown() int     { return positive(m.Shown, defaultShown) }
func (m *Pass) more() int      { return positive(m.More, defaultMore) }
func (m *Pass) parallel() int  { return positive(m.Parallel, defaultParallel) }
func (m *Pass) maxTokens() int { return positive(m.MaxTokens, defaultMaxTokens) }

func positive(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

func (m *Pass) log() *slog.Logger {
	if m.Logger != nil {
		return m.Logger
	}
	return slog.Default()
}

// promptTag is the prompt part of a cache key: the version and the
// passages shown.
func (m *Pass) promptTag() string {
	return fmt.Sprintf("%s/shown=%d+%d", PromptVersion, m.shown(), m.more())
}

// Version names the model and the prompts, for the review run's key.
func (m *Pass) Version() string {
	return "model=" + m.Chat.Model() + ";" + m.promptTag()
}

// Spent returns what the pass has spent so far: calls and tokens the
// server reported, and the calls answered from the cache.
func (m *Pass) Spent() review.Estimate {
	return review.Estimate{Calls: int(m.spent.calls.Load()), PromptTokens: int(m.spent.prompt.Load()),
		CompletionTokens: int(m.spent.completion.Load()), Cached: int(m.spent.cached.Load())}
}

func (m *Pass) key(d detect.Doc, p *playbook.Provision) cacheKey {
	return cacheKey{Doc: docHash(d), Provision: p.Name, Spec: provisionSpec(p), Model: m.Chat.Model(), Prompt: m.promptTag()}
}

// cellJob is one provision of a contract to refine.
type cellJob struct {
	prov    *playbook.Provision
	cands   []detect.Extract
	offline review.Cell
}

// jobs pairs the row's cells with their provisions and candidates.
func (m *Pass) jobs(d detect.Doc, row review.Row) ([]cellJob, error) {
	if d.Doc == nil {
		return nil, fmt.Errorf("review: document %q has no text", d.Name)
	}
	pb := m.Reviewer.Playbook()
	sets := m.Reviewer.Candidates(d, m.shown()+m.more())
	byName := map[string]int{}
	for i := range pb.Provisions {
		byName[pb.Provisions[i].Name] = i
	}
	var out []cellJob
	for _, c := range row.Cells {
		i, ok := byName[c.Provision]
		if !ok {
			return nil, fmt.Errorf("review: %s: the playbook has no provision %q", d.Name, c.Provision)
		}
		out = append(out, cellJob{prov: &pb.Provisions[i], cands: sets[i], offline: c})
	}
	return out, nil
}

// Refine replaces every cell of row with the model's answer. A cell whose
// model calls fail keeps its offline answer with a note, and Refine then
// returns the row together with an error naming those provisions (so a
// resumed run asks again; answers already cached cost nothing). On
// cancellation it returns ctx's error.
func (m *Pass) Refine(ctx context.Context, d detect.Doc, row review.Row) (review.Row, error) {
	if row.Error != "" {
		return row, nil
	}
	jobs, err := m.jobs(d, row)
	if err != nil {
		return row, err
	}
	out := row
	out.Cells = make([]review.Cell, len(row.Cells))
	errs := make([]error, len(jobs))
	var done atomic.Int32
	parallel.Each(ctx, len(jobs), m.parallel(), func(i int) {
		defer func() {
			// A panic in a cell is that cell's failure (its offline
			// answer stands), never the process's end.
			if p := recover(); p != nil {
				m.log().Error("review: model pass panicked on a cell", "doc", d.Name, "provision", jobs[i].prov.Name, "panic", p, "stack", string(debug.Stack()))
				errs[i] = fmt.Errorf("internal error (please report): %v", p)
			}
		}()
		var cached bool
		out.Cells[i], cached, errs[i] = m.refineCell(ctx, d, jobs[i])
		if m.Progress != nil && errs[i] == nil {
			m.Progress(CellProgress{Doc: d.Name, Provision: jobs[i].prov.Name, Done: int(done.Add(1)), Total: len(jobs), Cached: cached})
		}
	})
	if err := ctx.Err(); err != nil {
		return row, err
	}
	var failed []string
	var first error
	for i, e := range errs {
		if e == nil {
			continue
		}
		c := jobs[i].offline
		c.Notes = append(append([]string(nil), c.Notes...), "model pass failed, the offline answer is shown: "+e.Error())
		out.Cells[i] = c
		failed = append(failed, jobs[i].prov.Name)
		if first == nil {
			first = e
		}
		m.log().Warn("review: model pass failed on a cell; the offline answer stands", "doc", d.Name, "provision", jobs[i].prov.Name, "err", e)
	}
	if len(failed) > 0 {
		return out, fmt.Errorf("model pass failed on %d of %d provisions (%s): %w", len(failed), len(jobs), strings.Join(failed, ", "), first)
	}
	return out, nil
}

// refineCell answers one provision from the cache or the model; cached
// says which.
func (m *Pass) refineCell(ctx context.Context, d detect.Doc, j cellJob) (c review.Cell, cached bool, err error) {
	k := m.key(d, j.prov)
	ans, cached := loadAnswer(m.CacheDir, k)
	if cached {
		m.spent.cached.Add(int64(ans.Calls))
	} else {
		if ans, err = m.ask(ctx, d, j, k); err != nil {
			return review.Cell{}, false, err
		}
		if err := saveAnswer(m.CacheDir, ans); err != nil {
			m.log().Warn("review: cannot cache a model answer; it will be asked again", "doc", d.Name, "provision", j.prov.Name, "err", err)
		}
	}
	return buildCell(ctx, d, j.prov, j.offline, ans), cached, nil
}

// ask runs the calls of one cell: extraction, follow-up, and the risk
// questions when a quotation of the provision verifies.
func (m *Pass) ask(ctx context.Context, d detect.Doc, j cellJob, k cacheKey) (*modelAnswer, error) {
	ans := &modelAnswer{Key: k}
	shown, more := splitCandidates(j.cands, m.shown())
	first := blocksOf(d.Doc, shown, 1)
	next := blocksOf(d.Doc, more, len(first)+1)
	all := append(append([]block(nil), first...), next...)

	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: reviewSystem},
		{Role: llm.RoleUser, Content: firstPrompt(d.Name, j.prov, first)},
	}
	var r1 extractReply
	content, err := m.call(ctx, ans, "review.extract", msgs, extractSchema, &r1)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", j.prov.Name, err)
	}
	ans.First = resolvePass(r1, all)

	msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: content},
		llm.Message{Role: llm.RoleUser, Content: followUpPrompt(j.prov, len(first), next)})
	var r2 extractReply
	if _, err := m.call(ctx, ans, "review.follow_up", msgs, extractSchema, &r2); err != nil {
		return nil, fmt.Errorf("%s follow-up: %w", j.prov.Name, err)
	}
	ans.FollowUp = resolvePass(r2, all)

	if len(j.prov.Risks) == 0 {
		return ans, nil
	}
	found, _, _ := verifyQuotes(ctx, d, mergedQuotes(ans), len(ans.First.Quotes))
	if !ans.FollowUp.Found || len(found) == 0 {
		return ans, nil
	}
	rb := riskBlocks(d, all, found)
	var r3 riskReply
	msgs = []llm.Message{{Role: llm.RoleSystem, Content: reviewSystem}, {Role: llm.RoleUser, Content: riskPrompt(d.Name, j.prov, rb)}}
	if _, err := m.call(ctx, ans, "review.risks", msgs, riskSchema, &r3); err != nil {
		return nil, fmt.Errorf("%s risk questions: %w", j.prov.Name, err)
	}
	ans.Risks = resolveRisks(j.prov, r3, rb)
	return ans, nil
}

// call sends one structured request and counts what it spent.
func (m *Pass) call(ctx context.Context, ans *modelAnswer, step string, msgs []llm.Message, schema string, out any) (string, error) {
	req := llm.Request{Messages: msgs, Schema: &llm.Schema{Name: strings.ReplaceAll(step, ".", "_"), Schema: []byte(schema)},
		MaxTokens: m.maxTokens(), Step: step}
	cc := &countingChat{Chat: m.Chat}
	resp, err := llm.CompleteJSON(ctx, cc, req, out)
	calls := int(cc.n.Load())
	ans.Calls += calls
	m.spent.calls.Add(int64(calls))
	if resp != nil {
		ans.PromptTokens += resp.Usage.PromptTokens
		ans.CompletionTokens += resp.Usage.CompletionTokens
		m.spent.prompt.Add(int64(resp.Usage.PromptTokens))
		m.spent.completion.Add(int64(resp.Usage.CompletionTokens))
	}
	if err != nil {
		return "", err
	}
	return resp.Message.Content, nil
}

// countingChat counts the requests of one structured call (two when the
// reply needed a repair).
type countingChat struct {
	llm.Chat
	n atomic.Int32
}

func (c *countingChat) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	c.n.Add(1)
	return c.Chat.Complete(ctx, req)
}

// splitCandidates cuts the ranked candidates into those shown first and
// those kept for the follow-up, dropping follow-up candidates that overlap
// one already shown.
func splitCandidates(cands []detect.Extract, n int) (shown, more []detect.Extract) {
	shown = cands[:min(n, len(cands))]
	for _, c := range cands[len(shown):] {
		if !slices.ContainsFunc(shown, func(s detect.Extract) bool { return s.Span.Overlaps(c.Span) }) {
			more = append(more, c)
		}
	}
	return shown, more
}

// resolvePass records each quotation with the span of the passage it named.
func resolvePass(r extractReply, blocks []block) passAnswer {
	p := passAnswer{Found: r.Found, Value: strings.TrimSpace(r.Value), Confidence: clamp01(r.Confidence)}
	for _, q := range r.Quotes {
		p.Quotes = append(p.Quotes, resolveQuote(q, blocks))
	}
	return p
}

func resolveQuote(q replyQuote, blocks []block) quoteAnswer {
	qa := quoteAnswer{Passage: q.Passage, Text: q.Quote}
	for _, b := range blocks {
		if b.N == q.Passage {
			qa.Within = b.Span
		}
	}
	return qa
}

func resolveRisks(p *playbook.Provision, r riskReply, blocks []block) []riskAnswer {
	out := make([]riskAnswer, len(p.Risks))
	for i, rk := range p.Risks {
		out[i].Question = rk.Question
	}
	for _, a := range r.Answers {
		i := a.Question - 1
		if i < 0 || i >= len(out) || out[i].Answer != "" {
			continue
		}
		out[i].Answer = strings.TrimSpace(a.Answer)
		for _, q := range a.Quotes {
			out[i].Quotes = append(out[i].Quotes, resolveQuote(q, blocks))
		}
	}
	return out
}

// riskBlocks are the passages a risk question is asked over: the shown
// passages holding a verified quotation, and any verified quotation found
// outside them, renumbered from 1 in document order.
func riskBlocks(d detect.Doc, shown []block, found []detect.Extract) []block {
	var cands []detect.Extract
	for _, b := range shown {
		for _, e := range found {
			if b.Span.Overlaps(e.Span) {
				cands = append(cands, detect.Extract{Span: b.Span, Path: strings.Join(b.Paths, "; ")})
				break
			}
		}
	}
	for _, e := range found {
		if !slices.ContainsFunc(cands, func(c detect.Extract) bool { return c.Span.Contains(e.Span) }) {
			cands = append(cands, e)
		}
	}
	return blocksOf(d.Doc, cands, 1)
}

// mergedQuotes are the quotations of both passes, first pass first.
func mergedQuotes(a *modelAnswer) []quoteAnswer {
	return append(append([]quoteAnswer(nil), a.First.Quotes...), a.FollowUp.Quotes...)
}

func clamp01(x float64) float64 { return max(0, min(1, x)) }

// Estimate returns what Refine would spend on d: per provision not in the
// cache, the extraction and follow-up calls, and the risk call when the
// offline cell was found (the model may find more or fewer). Prompt tokens
// are the real prompts' length at about four characters a token (no
// tokenizer runs here); completion tokens are the MaxTokens bound. It makes
// no model calls.
func (m *Pass) Estimate(ctx context.Context, d detect.Doc, row review.Row) (review.Estimate, error) {
	var e review.Estimate
	if row.Error != "" {
		return e, nil
	}
	jobs, err := m.jobs(d, row)
	if err != nil {
		return e, err
	}
	for _, j := range jobs {
		if err := ctx.Err(); err != nil {
			return e, err
		}
		if a, ok := loadAnswer(m.CacheDir, m.key(d, j.prov)); ok {
			e.Cached += a.Calls
			continue
		}
		shown, more := splitCandidates(j.cands, m.shown())
		first := blocksOf(d.Doc, shown, 1)
		next := blocksOf(d.Doc, more, len(first)+1)
		p1 := approxTokens(reviewSystem) + approxTokens(firstPrompt(d.Name, j.prov, first)) + schemaTokens
		p2 := p1 + m.maxTokens()/4 + approxTokens(followUpPrompt(j.prov, len(first), next))
		e.Calls += 2
		e.PromptTokens += p1 + p2
		e.CompletionTokens += 2 * m.maxTokens()
		if len(j.prov.Risks) > 0 && j.offline.Found {
			rb := riskBlocks(d, first, j.offline.Extracts)
			e.Calls++
			e.PromptTokens += approxTokens(reviewSystem) + approxTokens(riskPrompt(d.Name, j.prov, rb)) + schemaTokens
			e.CompletionTokens += m.maxTokens()
		}
	}
	return e, nil
}

// schemaTokens is the schema's share of a prompt when a server without
// json_schema support gets it in the prompt.
var schemaTokens = approxTokens(extractSchema)

// approxTokens estimates the tokens of s at four characters a token, the
// usual rate for English text with BPE tokenizers.
func approxTokens(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }
