package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"runtime/debug"
	"time"

	"github.com/pakton/pakton/internal/chunk"
	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/family"
	"github.com/pakton/pakton/internal/parse"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/search/index"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/unpack"
)

// prepared is one document's outcome: its result and, when there is
// something to store, its record.
type prepared struct {
	res FileResult
	rec *store.Record
}

// preparer turns items into records; one is shared by the workers of an
// Ingest.
type preparer struct {
	existing func(id string) (store.DocInfo, bool, error) // the stored document of an id
	dups     *dupIndex
	opt      Options
	lim      unpack.Limits
}

// maxNesting bounds e-mails and archives inside e-mails.
const maxNesting = 8

// prepare reads and analyzes one item. A plain file or archive entry gives
// one outcome; an e-mail gives its own and one per attachment (and per
// entry of an attached archive), which the caller stores together, so a
// message is never stored without its attachments. It returns nil when ctx
// was cancelled first: nothing of the item is stored.
func (p *preparer) prepare(ctx context.Context, it item) (out []prepared) {
	res := FileResult{Path: it.path, Name: it.name, Status: it.status, Reason: it.reason, Err: it.err}
	if it.status != "" {
		return []prepared{{res: res}}
	}
	if ctx.Err() != nil {
		return nil
	}
	// A parser bug must cost one file, not the batch.
	defer func() {
		if r := recover(); r != nil {
			res.ID = store.DocID(it.name)
			res.Status, res.Reason = StatusFailed, fmt.Sprintf("internal error (please report): %v", r)
			res.Err = fmt.Errorf("%s: panic: %v\n%s", it.path, r, debug.Stack())
			out = []prepared{{res: res}}
		}
	}()
	var (
		data []byte
		err  error
		mod  time.Time
	)
	if it.entry != nil {
		data, err = it.arc.Read(*it.entry)
		mod = it.entry.Modified
	} else {
		var fi interface{ ModTime() time.Time }
		data, fi, err = readFile(it.path, p.opt.Parse.MaxBytes)
		if fi != nil {
			mod = fi.ModTime()
		}
	}
	if err != nil {
		res.ID = store.DocID(it.name)
		res.Status, res.Reason, res.Err = StatusFailed, err.Error(), fmt.Errorf("%s: %w", it.path, err)
		return []prepared{{res: res}}
	}
	src := it.src
	src.ModTime = mod.UTC()
	return p.document(ctx, it.path, it.name, data, src, nil, 0)
}

// document prepares the document named name from data (or, for an
// attached Outlook message, from msg, read already) with its attachments.
func (p *preparer) document(ctx context.Context, where, name string, data []byte, src store.Source, msg *unpack.Message, depth int) []prepared {
	res := FileResult{Path: where, Name: name, ID: store.DocID(name), Bytes: int64(len(data))}
	fail := func(reason string, err error) []prepared {
		res.Status, res.Reason, res.Err = StatusFailed, reason, fmt.Errorf("%s: %w", where, err)
		return []prepared{{res: res}}
	}
	if depth > maxNesting {
		return fail(fmt.Sprintf("refused: e-mails and archives nested more than %d deep", maxNesting), unpack.ErrBomb)
	}
	if data == nil && msg == nil {
		return fail("no data", parse.ErrEmpty)
	}
	if unpack.Kind(name) == "zip" {
		return p.attachedArchive(ctx, where, name, data, src, depth)
	}
	if msg == nil && parse.Format(name) == "" {
		res.Status, res.Reason = StatusSkipped, unsupportedReason(name)
		return []prepared{{res: res}}
	}
	h := sha256.Sum256(data)
	if msg != nil {
		// An attached Outlook message has no bytes of its own: its
		// identity is its rendered text (below).
		h = sha256.Sum256(nil)
	}
	sha := hex.EncodeToString(h[:])
	prev, had, lerr := p.existing(res.ID)
	if lerr != nil {
		return fail("cannot look up the stored version: "+lerr.Error(), lerr)
	}
	if msg == nil {
		if had && prev.Source.SHA256 == sha && !p.opt.Force {
			res.Status, res.Reason = StatusUnchanged, "same content as the stored version"
			return []prepared{{res: res}}
		}
		// A new name with bytes the collection already holds is the same
		// contract under another name (a copy, a web upload of a file the CLI
		// ingested): one document, not two, or every hit would appear twice.
		if !had && !p.opt.Force {
			first, ok, err := p.dups.claim(sha, store.DocInfo{ID: res.ID, Name: name})
			if err != nil {
				return fail("cannot look up the stored documents: "+err.Error(), err)
			}
			if !ok {
				res.ID = first.ID
				res.Status, res.Reason = StatusUnchanged, fmt.Sprintf("same content as %q, already in the collection", first.Name)
				res.Same = first.Name
				return []prepared{{res: res}}
			}
		}
	}

	popt := p.opt.Parse
	if report := popt.Progress; report != nil {
		popt.Progress = func(msg string) { report(name + ": " + msg) }
	}
	var (
		doc *document.Document
		err error
	)
	format := parse.Format(name)
	switch {
	case msg != nil:
		doc, err = parse.Message(ctx, msg)
	case format == "email":
		if msg, err = readMessage(name, data); err == nil {
			doc, err = parse.Message(ctx, msg)
		} else {
			err = fmt.Errorf("%w: %v", parse.ErrCorrupt, err)
		}
	default:
		doc, err = parse.Bytes(ctx, path.Base(name), data, popt)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fail(err.Error(), err)
	}
	if msg != nil && data == nil {
		h := sha256.Sum256([]byte(doc.Text))
		sha = hex.EncodeToString(h[:])
	}
	doc.ID, doc.Name = res.ID, name
	var children []prepared
	if msg != nil {
		// Attachments first, so the message can say where each went.
		links := make([]string, len(msg.Attachments))
		for i, a := range msg.Attachments {
			cname := name + "/" + a.Name
			csrc := store.Source{Path: src.Path, Archive: src.Archive, Folder: src.Folder, Parent: name, ModTime: src.ModTime}
			if src.Entry != "" {
				csrc.Entry = src.Entry + "/" + a.Name
			}
			var got []prepared
			if a.Refused != "" {
				r := FileResult{Path: where + "/" + a.Name, Name: cname, ID: store.DocID(cname), Status: StatusFailed, Reason: "refused: " + a.Refused}
				r.Err = fmt.Errorf("%s: %s", r.Path, r.Reason)
				got = []prepared{{res: r}}
			} else {
				got = p.document(ctx, where+"/"+a.Name, cname, a.Data, csrc, a.Message, depth+1)
				if got == nil {
					return nil // cancelled: nothing of the message is stored
				}
			}
			if len(got) > 0 {
				switch r := got[0].res; {
				case r.Status == StatusAdded || r.Status == StatusReplaced || r.Status == StatusUnchanged && r.Same == "":
					links[i] = r.Name
				case r.Same != "":
					links[i] = r.Same
				}
			}
			children = append(children, got...)
		}
		if doc.Meta != nil && doc.Meta.Message != nil {
			doc.Meta.Message.Documents = links
		}
	}
	src.SHA256, src.Size = sha, int64(len(data))
	rec, err := p.analyze(ctx, doc, data, &res, src)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fail(err.Error(), err)
	}
	res.Status = StatusAdded
	if had {
		res.Status = StatusReplaced
	}
	return append([]prepared{{res: res, rec: rec}}, children...)
}

// attachedArchive prepares the entries of a ZIP archive attached to an
// e-mail (or nested in one), read in memory within the limits.
func (p *preparer) attachedArchive(ctx context.Context, where, name string, data []byte, src store.Source, depth int) []prepared {
	a, err := unpack.OpenZip(bytes.NewReader(data), int64(len(data)), p.lim)
	if err != nil {
		r := FileResult{Path: where, Name: name, ID: store.DocID(name), Status: StatusFailed, Reason: err.Error(), Bytes: int64(len(data))}
		r.Err = fmt.Errorf("%s: %w", where, err)
		return []prepared{{res: r}}
	}
	var out []prepared
	for _, e := range a.Entries {
		cname := name + "/" + e.Name
		cwhere := where + "/" + e.Name
		csrc := src
		csrc.Folder = folderOf(cname)
		csrc.Entry = path.Join(src.Entry, e.Name)
		csrc.ModTime = e.Modified.UTC()
		if e.Refused != "" {
			r := FileResult{Path: cwhere, Name: cname, ID: store.DocID(cname), Status: StatusFailed, Reason: "refused: " + e.Refused}
			r.Err = fmt.Errorf("%s: %s: %w", cwhere, r.Reason, unpack.ErrRefused)
			out = append(out, prepared{res: r})
			continue
		}
		b, err := a.Read(e)
		if err != nil {
			r := FileResult{Path: cwhere, Name: cname, ID: store.DocID(cname), Status: StatusFailed, Reason: err.Error()}
			r.Err = fmt.Errorf("%s: %w", cwhere, err)
			out = append(out, prepared{res: r})
			continue
		}
		got := p.document(ctx, cwhere, cname, b, csrc, nil, depth+1)
		if got == nil {
			return nil
		}
		out = append(out, got...)
	}
	return out
}

func readMessage(name string, data []byte) (*unpack.Message, error) {
	if unpack.Kind(name) == "msg" {
		return unpack.ReadMSG(data)
	}
	return unpack.ReadEML(data)
}

// analyze builds a parsed document's clause tree, retrieval units, index
// segment, summary, graph and optional vectors into a record.
func (p *preparer) analyze(ctx context.Context, doc *document.Document, data []byte, res *FileResult, src store.Source) (*store.Record, error) {
	tree := clause.Parse(doc)
	sum := chunk.Summary(doc)
	if p.opt.Summarize != nil {
		gen, err := p.opt.Summarize(ctx, doc)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			res.Reason = "model summary failed, deterministic summary used: " + err.Error()
		default:
			sum.Generated = gen
		}
	}
	nm := chunk.Names(doc)
	units := chunk.Build(doc, tree, chunk.Options{Summary: sum.Generated, Names: &nm})
	seg := index.AnalyzeDoc(units).Encode()
	summary, err := json.Marshal(sum)
	if err != nil {
		return nil, fmt.Errorf("cannot encode summary: %w", err)
	}
	namesJSON, err := json.Marshal(nm)
	if err != nil {
		return nil, fmt.Errorf("cannot encode names: %w", err)
	}
	artifacts := map[string][]byte{ArtifactSegment: seg, ArtifactSummary: summary, ArtifactNames: namesJSON,
		ArtifactFamily: family.SignWithParties(doc.MaskedText(), family.Parties(nm)).Encode()}
	rec0 := &store.Record{Doc: doc, Tree: tree}
	if artifacts[ArtifactGraph], err = encodeGraph(ctx, rec0); err != nil {
		return nil, err
	}
	if doc.Layout != nil {
		layout, err := document.EncodeLayout(doc.Layout)
		if err != nil {
			return nil, fmt.Errorf("cannot encode layout: %w", err)
		}
		artifacts[ArtifactLayout] = layout
		artifacts[ArtifactSource] = data
	}
	if p.opt.Embedder != nil {
		vecs, err := search.EmbedDoc(ctx, p.opt.Embedder, units)
		if err != nil {
			return nil, err
		}
		artifacts[ArtifactVectors] = vecs.Encode()
	}
	return &store.Record{Doc: doc, Tree: tree, Source: src, Artifacts: artifacts}, nil
}
