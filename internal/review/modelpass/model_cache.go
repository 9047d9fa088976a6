package modelpass

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"

	"github.com/pakton/pakton/internal/atomicfile"
	"github.com/pakton/pakton/internal/document"
)

// The model pass caches every cell's model answers, one file per key:
//
//	dir/<sha256 of the key>.json   {"key": {...}, "first": ..., "follow_up": ..., "risks": [...]}
//
// The key is the document's content hash, the provision's name and a hash
// of everything the playbook says about it that reaches a prompt
// (definition, excludes, keywords, answer format, risk questions), the
// model's name and the prompt version with the number of passages shown.
// The file holds the model's replies with each quotation's passage already
// resolved to its span, not the finished cell: the quotations are verified
// against the document again when the cell is rebuilt, so a verification
// fix applies to cached answers without spending a call. Files are written
// atomically (temporary file, fsync, rename); a cell is cached only when
// every call it needed succeeded. The candidate passages are not in the
// key: retrained detectors do not re-spend the model calls of a finished
// review (delete the directory to force it).

// cacheKey identifies one cell's model answers.
type cacheKey struct {
	Doc       string `json:"doc"`       // the document's content hash
	Provision string `json:"provision"` // the provision's name
	Spec      string `json:"spec"`      // hash of what the prompts say about it
	Model     string `json:"model"`
	Prompt    string `json:"prompt"` // PromptVersion and the passages shown
}

// file returns the cache file of k in dir.
func (k cacheKey) file(dir string) string {
	raw, _ := json.Marshal(k)
	sum := sha256.Sum256(raw)
	return filepath.Join(dir, hex.EncodeToString(sum[:16])+".json")
}

// provisionSpec hashes what the prompts say about a provision.
func provisionSpec(p *playbook.Provision) string {
	spec := struct {
		Name       string                `json:"name"`
		Definition string                `json:"definition"`
		Excludes   string                `json:"excludes"`
		Keywords   []playbook.Keyword    `json:"keywords"`
		Answer     playbook.AnswerFormat `json:"answer"`
		Risks      []playbook.Risk       `json:"risks"`
	}{p.Name, p.Definition, p.Excludes, p.Keywords, p.Answer, p.Risks}
	raw, _ := json.Marshal(spec)
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:12])
}

// docHash is the document's content hash: the store's source hash when
// known, else a hash of its canonical text.
func docHash(d detect.Doc) string {
	if d.Hash != "" {
		return d.Hash
	}
	sum := sha256.Sum256([]byte(d.Doc.Text))
	return "text:" + hex.EncodeToString(sum[:])
}

// modelAnswer is one cell's model answers, as cached.
type modelAnswer struct {
	Key      cacheKey     `json:"key"`
	First    passAnswer   `json:"first"`
	FollowUp passAnswer   `json:"follow_up"`
	Risks    []riskAnswer `json:"risks,omitempty"`
	// Calls and tokens spent to get these answers (what a cache hit saves).
	Calls            int `json:"calls"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// passAnswer is one extraction reply with its quotations resolved.
type passAnswer struct {
	Found      bool          `json:"found"`
	Quotes     []quoteAnswer `json:"quotes"`
	Value      string        `json:"value"`
	Confidence float64       `json:"confidence"`
}

// quoteAnswer is a quotation and the span of the passage it named (empty
// when it named no passage shown).
type quoteAnswer struct {
	Passage int           `json:"passage"`
	Within  document.Span `json:"within"`
	Text    string        `json:"text"`
}

// riskAnswer is the reply to one risk question.
type riskAnswer struct {
	Question string        `json:"question"`
	Answer   string        `json:"answer"`
	Quotes   []quoteAnswer `json:"quotes,omitempty"`
}

// loadAnswer returns the cached answers for k, if any. A damaged or
// foreign file is a miss.
func loadAnswer(dir string, k cacheKey) (*modelAnswer, bool) {
	if dir == "" {
		return nil, false
	}
	raw, err := os.ReadFile(k.file(dir))
	if err != nil {
		return nil, false
	}
	var a modelAnswer
	if json.Unmarshal(raw, &a) != nil || a.Key != k {
		return nil, false
	}
	return &a, true
}

// saveAnswer writes a's file atomically.
func saveAnswer(dir string, a *modelAnswer) error {
	if dir == "" {
		return nil
	}
	// Mkdir, not MkdirAll: the cache lives inside its collection's (or a
	// run's) directory, and must not bring back one deleted meanwhile.
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("model cache %s: %w", dir, err)
	}
	raw, err := json.Marshal(a)
	if err != nil {
		return err
	}
	return atomicfile.Write(a.Key.file(dir), raw, 0o644)
}
