package usecase

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/pakton/pakton/internal/chunk"
	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/names"
	"github.com/pakton/pakton/internal/store"
)

// Details is what pakton knows about one stored document beyond its text:
// what `pakton docs show`, the API's document metadata and the web app's
// document panel show.
type Details struct {
	store.DocInfo
	// Folder is the folder the document was filed in ("" at the top).
	Folder string `json:"folder"`
	// Title, Parties and Type are read from the document at ingest
	// (chunk.Summary).
	Title   string   `json:"title,omitempty"`
	Parties []string `json:"parties,omitempty"`
	Type    string   `json:"type,omitempty"`
	// Display is how every face shows the document: its title, parties and
	// date (names.Display: "Distributor Agreement — Airspan Networks / GLS,
	// 31 March 2000"); the name above stays its file.
	Display string `json:"display"`
	// Names are what people may call the document by, learnt at ingest
	// (internal/names): parties and their short names, title, type, date,
	// file name and folder.
	Names []names.Name `json:"names,omitempty"`
	// Meta is what the parser learnt: OCR confidence, an e-mail's headers
	// and attachments.
	Meta *document.Meta `json:"meta,omitempty"`
	// Attachments, for an e-mail, are the documents holding its
	// attachments; Parent, for an attachment, the e-mail's document.
	Attachments []DocRef `json:"attachments,omitempty"`
	Parent      *DocRef  `json:"parent,omitempty"`
	// Duplicates lists the other documents of the same family
	// (near-duplicates and versions of one contract), filled in by the
	// caller that knows the families.
	Duplicates []DocRef `json:"duplicates,omitempty"`
}

// DocRef names a document, and says whether it is in the collection.
type DocRef struct {
	ID      string `json:"id,omitempty"` // "" when no document holds it
	Name    string `json:"name"`
	Note    string `json:"note,omitempty"` // e.g. why an attachment has no document
	Missing bool   `json:"missing,omitempty"`
}

// Describe returns the details of the document with id in a collection.
func Describe(ctx context.Context, st *store.Store, collection, id string) (Details, *store.Record, error) {
	info, err := st.Info(ctx, collection, id)
	if err != nil {
		return Details{}, nil, err
	}
	rec, err := st.Document(ctx, collection, id)
	if err != nil {
		return Details{}, nil, err
	}
	d := Details{DocInfo: info, Folder: docread.DocFolder(info), Meta: rec.Doc.Meta}
	var sum chunk.DocSummary
	if b, err := st.Artifact(ctx, collection, id, docread.ArtifactSummary); err == nil && json.Unmarshal(b, &sum) == nil {
		d.Title, d.Parties, d.Type = sum.Title, sum.Parties, sum.Type
	} else {
		sum = chunk.Summary(rec.Doc)
		d.Title, d.Parties, d.Type = sum.Title, sum.Parties, sum.Type
	}
	byName := map[string]store.DocInfo{}
	if infos, err := st.List(ctx, collection); err == nil {
		for _, in := range infos {
			byName[in.Name] = in
		}
	}
	ref := func(name, note string) DocRef {
		if in, ok := byName[name]; ok {
			return DocRef{ID: in.ID, Name: name, Note: note}
		}
		return DocRef{Name: name, Note: note, Missing: true}
	}
	if p := info.Source.Parent; p != "" {
		r := ref(p, "")
		d.Parent = &r
	}
	if m := rec.Doc.Meta; m != nil && m.Message != nil {
		for i, a := range m.Message.Attachments {
			name := ""
			if i < len(m.Message.Documents) {
				name = m.Message.Documents[i]
			}
			switch {
			case name == "":
				d.Attachments = append(d.Attachments, DocRef{Name: a, Note: "not ingested: see the ingest report", Missing: true})
			case name != info.Name+"/"+a:
				d.Attachments = append(d.Attachments, ref(name, "same file as "+a))
			default:
				d.Attachments = append(d.Attachments, ref(name, ""))
			}
		}
	}
	if nm, err := docread.DocNames(ctx, st, collection, id); err == nil {
		d.Names = nm.All()
		// The names learner reads parties, title and type more carefully
		// than the summary line (which cuts a preamble at every "and"):
		// where it read them, they are what the document is shown by.
		if len(nm.Parties) > 0 {
			d.Parties = d.Parties[:0]
			for _, p := range nm.Parties {
				d.Parties = append(d.Parties, p.Name)
			}
		}
		if nm.Title != "" {
			d.Title = nm.Title
		}
		if nm.Type != "" {
			d.Type = nm.Type
		}
		d.Display = names.Display(nm, info.Name)
	}
	if d.Display == "" {
		d.Display = names.Display(names.Names{Title: d.Title, Type: d.Type}, info.Name)
	}
	if fams, err := CollectionFamilies(ctx, st, collection); err == nil {
		d.Duplicates = fams.Duplicates(id)
	}
	return d, rec, nil
}

// InFolder reports whether a document filed in folder lies in want or
// below it ("01 Corporate" holds "01 Corporate/1.1 Supply"); folders
// compare without regard to case.
func InFolder(folder, want string) bool {
	want = strings.Trim(want, "/")
	if want == "" {
		return true
	}
	f, w := strings.ToLower(folder), strings.ToLower(want)
	return f == w || strings.HasPrefix(f, w+"/")
}

// Folders lists the folders of a collection's documents with their number
// of documents (a folder counts the documents below it too), sorted.
func Folders(infos []store.DocInfo) []FolderCount {
	counts := map[string]int{}
	for _, in := range infos {
		f := docread.DocFolder(in)
		for f != "" {
			counts[f]++
			i := strings.LastIndex(f, "/")
			if i < 0 {
				break
			}
			f = f[:i]
		}
	}
	out := make([]FolderCount, 0, len(counts))
	for f, n := range counts {
		out = append(out, FolderCount{f, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Folder < out[j].Folder })
	return out
}

// FolderCount is a folder and how many documents it holds.
type FolderCount struct {
	Folder string `json:"folder"`
	Docs   int    `json:"docs"`
}
