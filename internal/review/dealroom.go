package review

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/pakton/pakton/internal/atomicfile"
	"github.com/pakton/pakton/internal/parallel"
	"github.com/pakton/pakton/internal/review/answer"
	"github.com/pakton/pakton/internal/review/playbook"
)

// A deal-room question asks about every contract of a collection at once —
// "Which of our contracts can be terminated for convenience?", "Which
// contracts are governed by New York law?" — and is answered per contract
// by the review engine: the provision the question asks about
// (Finder.Asked) is reviewed in each contract, and the contracts that have
// it, and meet the question's value condition (ParseCondition) when it has
// one, are listed with their answers and the clauses they were read from;
// the rest are counted.
//
// Cells are cached per collection (DealRoomOptions.CacheDir): a file per
// provision and reviewer fingerprint maps each contract to its cell and the
// content hash it was made from, so a second question about the same
// provision reviews only the contracts that changed — it is answered from
// the cache. A cell is reused only for the same content hash and the same
// fingerprint (playbook, detectors, engine version): never stale.

// DealRoomDoc is a contract a deal-room question is asked about.
type DealRoomDoc struct {
	ID, Name string
	// Hash identifies the content (the store's source SHA-256); the cache
	// reuses a cell only for the same hash. Empty: not cached.
	Hash string
}

// DealRoomOptions tune Finder.DealRoom.
type DealRoomOptions struct {
	// CacheDir holds the cells reviewed before ("" = no cache).
	CacheDir string
	// Workers is how many contracts are reviewed at once (default 2).
	Workers int
	// Progress, when set, is called after each contract reviewed (not
	// for those read from the cache).
	Progress func(done, total int)
}

// DealRoom is a question about a collection answered per contract.
type DealRoom struct {
	Question  string `json:"question"`
	Provision string `json:"provision"`
	// Condition is the value condition the question puts on the
	// provision ("New York law", "more than 60 days"), if any.
	Condition *answer.Condition `json:"condition,omitempty"`
	// Ask is the value the question asks for beside the provision ("on
	// what notice", "under which law"), if any; each listed row carries it
	// (DealRow.Asked).
	Ask *answer.Ask `json:"ask,omitempty"`
	// Rows are the contracts that have the provision (and meet the
	// condition), most confident first.
	Rows []DealRow `json:"rows"`
	// Checked is how many contracts were reviewed; Have how many have the
	// provision; Lacking how many were found to lack it; NotMatching how
	// many have it but not as the condition asks; Undecided how many could
	// not be decided (unreadable, or the condition's value could not be
	// read from their clause).
	Checked     int `json:"checked"`
	Have        int `json:"have"`
	Lacking     int `json:"lacking"`
	NotMatching int `json:"not_matching"`
	Undecided   int `json:"undecided"`
	// Cached is how many cells came from the cache.
	Cached int `json:"cached"`
	// Others are the contracts not listed, each with why (for a face that
	// shows the whole deal room): lacking, not matching, undecided.
	Others []DealRow `json:"others,omitempty"`
}

// DealRow is one contract's answer to a deal-room question.
type DealRow struct {
	DocID   string `json:"doc_id"`
	DocName string `json:"doc_name"`
	Cell    Cell   `json:"cell"`
	// Status is "has", "lacks", "not_matching" or "undecided".
	Status string `json:"status"`
	// Value is what the condition was checked on, as read ("New York",
	// "90 days"), when the question has a condition.
	Value string `json:"value,omitempty"`
	// Why says why an undecided contract could not be decided.
	Why string `json:"why,omitempty"`
	// Asked is the value the question asks for, read from the contract
	// ("60 days", "Customer: 60 days; Provider: 180 days (only during any
	// Renewal Term)", "New York"); empty when the contract does not say.
	// AskedFrom says where: the clause path of the extract it was read
	// from, when it is not the clause the cell is cited to (the governing
	// law of a question about another provision; a general cap read from
	// the clause after the cell's first).
	Asked     string `json:"asked,omitempty"`
	AskedFrom string `json:"asked_from,omitempty"`
}

// Row statuses.
const (
	StatusHas         = "has"
	StatusLacks       = "lacks"
	StatusNotMatching = "not_matching"
	StatusUndecided   = "undecided"
)

// DealRoom answers question about docs per contract. It returns nil (and no
// error) when the question asks about no provision of the playbook clearly:
// the caller then falls back to searching each contract.
func (f *Finder) DealRoom(ctx context.Context, question string, docs []DealRoomDoc, opt DealRoomOptions) (*DealRoom, error) {
	names := f.asked(question)
	if len(names) == 0 {
		return nil, nil
	}
	rev, err := f.reviewer(names[:1])
	if err != nil {
		return nil, err
	}
	prov := &rev.pb.Provisions[0]
	dr := &DealRoom{Question: question, Provision: prov.Name, Checked: len(docs)}
	cache := openDealCache(opt.CacheDir, prov.Name, rev.Fingerprint())
	cells := make([]Cell, len(docs))
	errs := make([]error, len(docs))
	var todo []int
	for i, d := range docs {
		if c, ok := cache.get(d); ok {
			cells[i] = c
			dr.Cached++
			continue
		}
		todo = append(todo, i)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = 2
	}
	var mu sync.Mutex
	done := 0
	err = parallel.Each(ctx, len(todo), workers, func(k int) {
		i := todo[k]
		c, err := f.reviewOne(ctx, rev, docs[i])
		cells[i], errs[i] = c, err
		if err == nil {
			cache.put(docs[i], c)
		}
		if opt.Progress != nil {
			mu.Lock()
			done++
			opt.Progress(done, len(todo))
			mu.Unlock()
		}
	})
	if err != nil {
		return nil, err
	}
	if err := cache.save(); err != nil {
		// The answer stands; the next question reviews again.
		slog.Warn("deal-room cache not saved", "err", err)
	}
	cond := answer.ParseCondition(question, prov)
	dr.Condition = cond
	dr.Ask = answer.ParseAsk(question, prov)
	for i, d := range docs {
		row := DealRow{DocID: d.ID, DocName: d.Name, Cell: cells[i]}
		switch {
		case errs[i] != nil:
			row.Status, row.Why = StatusUndecided, errs[i].Error()
		case !cells[i].Found:
			row.Status = StatusLacks
		case cond == nil:
			row.Status = StatusHas
		default:
			v, ok, why := cond.Check(cells[i].shown(), cells[i].Extracts)
			row.Value = v
			switch {
			case why != "":
				row.Status, row.Why = StatusUndecided, why
			case ok:
				row.Status = StatusHas
			default:
				row.Status = StatusNotMatching
			}
		}
		if row.Status != StatusUndecided && cells[i].Found {
			dr.Have++
		}
		switch row.Status {
		case StatusHas:
			dr.Rows = append(dr.Rows, row)
		case StatusLacks:
			dr.Lacking++
			dr.Others = append(dr.Others, row)
		case StatusNotMatching:
			dr.NotMatching++
			dr.Others = append(dr.Others, row)
		case StatusUndecided:
			dr.Undecided++
			dr.Others = append(dr.Others, row)
		}
	}
	if dr.Ask != nil {
		f.readAsked(ctx, dr, prov, docs, opt)
	}
	slices.SortStableFunc(dr.Rows, func(a, b DealRow) int {
		switch {
		case a.Cell.Confidence > b.Cell.Confidence:
			return -1
		case a.Cell.Confidence < b.Cell.Confidence:
			return 1
		}
		return 0
	})
	return dr, nil
}

// readAsked reads the value a deal-room question asks for into each listed
// row: from the row's own cell, or — for the governing law of a question
// about another provision ("Which contracts restrict assignment, and under
// which law?") — from the cell of the playbook's provision answered by a
// jurisdiction, reviewed (and cached) like the question's own.
func (f *Finder) readAsked(ctx context.Context, dr *DealRoom, prov *playbook.Provision, docs []DealRoomDoc, opt DealRoomOptions) {
	byID := map[string]DealRoomDoc{}
	for _, d := range docs {
		byID[d.ID] = d
	}
	var law *Reviewer
	var lawCache *dealCache
	if dr.Ask.Kind == answer.AskJurisdiction && prov.Answer != playbook.AnswerJurisdiction {
		for _, p := range f.pb.Provisions {
			if p.Answer == playbook.AnswerJurisdiction {
				if r, err := f.reviewer([]string{p.Name}); err == nil {
					law = r
					lawCache = openDealCache(opt.CacheDir, p.Name, r.Fingerprint())
				}
				break
			}
		}
	}
	for i := range dr.Rows {
		row := &dr.Rows[i]
		c := row.Cell
		if law == nil {
			var spans []answer.Span
			row.Asked, spans = dr.Ask.AskedValue(prov, c.Answer, c.Extracts)
			// a value read from another clause than the cell's first names it
			if len(spans) > 0 && spans[0].Extract > 0 && spans[0].Extract < len(c.Extracts) &&
				c.Extracts[spans[0].Extract].Path != c.Extracts[0].Path {
				row.AskedFrom = c.Extracts[spans[0].Extract].Path
			}
			continue
		}
		d := byID[row.DocID]
		lc, ok := lawCache.get(d)
		if !ok {
			var err error
			if lc, err = f.reviewOne(ctx, law, d); err != nil {
				continue
			}
			lawCache.put(d, lc)
		}
		if lc.Found && lc.Answer != nil && lc.Answer.Text != "" {
			row.Asked = lc.Answer.Text
			if len(lc.Extracts) > 0 {
				row.AskedFrom = lc.Extracts[0].Path
			}
		}
	}
	if lawCache != nil {
		if err := lawCache.save(); err != nil {
			slog.Warn("deal-room cache not saved", "err", err)
		}
	}
}

// reviewOne reviews one contract for rev's single provision.
func (f *Finder) reviewOne(ctx context.Context, rev *Reviewer, d DealRoomDoc) (Cell, error) {
	if err := ctx.Err(); err != nil {
		return Cell{}, err
	}
	prep, err := f.prepared(ctx, d.ID)
	if err != nil {
		return Cell{}, fmt.Errorf("%s: %w", d.Name, err)
	}
	scores := rev.sc.Scores(prep)
	c := rev.cell(prep, 0, scores[0])
	if c.DocName == "" {
		c.DocName = d.Name
	}
	return c, nil
}

// dealCache is the cells of one provision and reviewer fingerprint, by
// contract, as one file of a directory:
//
//	dir/<sha256 of provision and fingerprint>.json
//	{"provision": …, "fingerprint": …, "cells": {"<doc id>": {"hash": …, "cell": {…}}}}
//
// written atomically. A damaged or foreign file is a miss.
//
// A process keeps the caches it read or wrote last in memory
// (dealCachesKept of them), each with the size and modification time of its
// file: a question whose cache file is unchanged since uses the one in
// memory instead of decoding the file again (at 46,800 contracts it is tens
// of megabytes of JSON, most of a cached question's time); a file changed by
// another process is read again.
type dealCache struct {
	path        string
	Provision   string                   `json:"provision"`
	Fingerprint string                   `json:"fingerprint"`
	Cells       map[string]dealCacheCell `json:"cells"`
	mu          sync.Mutex
	dirty       bool
	size        int64     // of the file as last read or written
	mod         time.Time // its modification time then
}

type dealCacheCell struct {
	Hash string `json:"hash"`
	Cell Cell   `json:"cell"`
}

// dealCachesKept is how many deal-room caches a process keeps decoded.
const dealCachesKept = 4

// keptDealCaches are the caches kept decoded, most recently used last.
var keptDealCaches struct {
	sync.Mutex
	list []*dealCache
}

func keepDealCache(c *dealCache) {
	keptDealCaches.Lock()
	defer keptDealCaches.Unlock()
	l := slices.DeleteFunc(keptDealCaches.list, func(k *dealCache) bool { return k.path == c.path })
	l = append(l, c)
	if len(l) > dealCachesKept {
		l = slices.Delete(l, 0, len(l)-dealCachesKept)
	}
	keptDealCaches.list = l
}

func openDealCache(dir, provision, fingerprint string) *dealCache {
	c := &dealCache{Provision: provision, Fingerprint: fingerprint, Cells: map[string]dealCacheCell{}}
	if dir == "" {
		return c
	}
	sum := sha256.Sum256([]byte(provision + "\x00" + fingerprint))
	c.path = filepath.Join(dir, hex.EncodeToString(sum[:12])+".json")
	fi, err := os.Stat(c.path)
	if err != nil {
		return c
	}
	keptDealCaches.Lock()
	for _, k := range keptDealCaches.list {
		if k.path == c.path {
			k.mu.Lock()
			same := k.size == fi.Size() && k.mod.Equal(fi.ModTime())
			k.mu.Unlock()
			if same {
				keptDealCaches.Unlock()
				keepDealCache(k)
				return k
			}
		}
	}
	keptDealCaches.Unlock()
	raw, err := os.ReadFile(c.path)
	if err != nil {
		return c
	}
	var onDisk dealCache
	if json.Unmarshal(raw, &onDisk) == nil && onDisk.Provision == provision && onDisk.Fingerprint == fingerprint && onDisk.Cells != nil {
		c.Cells = onDisk.Cells
		c.size, c.mod = fi.Size(), fi.ModTime()
		if int64(len(raw)) == fi.Size() {
			keepDealCache(c)
		}
	}
	return c
}

func (c *dealCache) get(d DealRoomDoc) (Cell, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.Cells[d.ID]
	if !ok || d.Hash == "" || e.Hash != d.Hash {
		return Cell{}, false
	}
	e.Cell.DocName = d.Name // renamed since: the cell is the same
	return e.Cell, true
}

func (c *dealCache) put(d DealRoomDoc, cell Cell) {
	if d.Hash == "" || c.path == "" {
		return
	}
	c.mu.Lock()
	c.Cells[d.ID] = dealCacheCell{Hash: d.Hash, Cell: cell}
	c.dirty = true
	c.mu.Unlock()
}

func (c *dealCache) save() error {
	if c.path == "" {
		return nil
	}
	kept, err := c.write()
	if kept {
		// (after c.mu is released: openDealCache takes the list's lock
		// before a cache's)
		keepDealCache(c)
	}
	return err
}

// write writes the cache's file when it changed; true when it did and the
// cache may be kept in memory for it.
func (c *dealCache) write() (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return false, fmt.Errorf("deal-room cache %s: %w", filepath.Dir(c.path), err)
	}
	raw, err := json.Marshal(c)
	if err != nil {
		return false, err
	}
	if err := atomicfile.Write(c.path, raw, 0o644); err != nil {
		return false, err
	}
	c.dirty = false
	fi, err := os.Stat(c.path)
	if err != nil || fi.Size() != int64(len(raw)) {
		return false, nil
	}
	c.size, c.mod = fi.Size(), fi.ModTime()
	return true, nil
}
