package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/usecase"
)

// uriScheme prefixes every document resource: pakton://<collection>/documents/<id>.
const uriScheme = "pakton://"

// resourcePage is the most documents one resources/list answer names; the
// next cursor continues after them.
const resourcePage = 500

func docURI(collection, id string) string {
	return uriScheme + collection + "/documents/" + id
}

// docGraphURI names a document's graph: pakton://<collection>/documents/<id>/graph.
func docGraphURI(collection, id string) string { return docURI(collection, id) + "/graph" }

// collectionGraphURI names a collection's graph: pakton://<collection>/graph.
func collectionGraphURI(collection string) string { return uriScheme + collection + "/graph" }

// docRef is a parsed resource URI: a document's text (graph false), a
// document's graph, or with no id the collection's graph.
type docRef struct {
	collection, id string
	graph          bool
}

// parseURI splits a resource URI.
func parseURI(uri string) (docRef, bool) {
	rest, ok := strings.CutPrefix(uri, uriScheme)
	if !ok {
		return docRef{}, false
	}
	parts := strings.Split(rest, "/")
	switch {
	case len(parts) == 2 && parts[0] != "" && parts[1] == "graph":
		return docRef{collection: parts[0], graph: true}, true
	case len(parts) == 4 && parts[3] == "graph":
		parts = parts[:3]
		if parts[0] == "" || parts[1] != "documents" || parts[2] == "" {
			return docRef{}, false
		}
		return docRef{collection: parts[0], id: parts[2], graph: true}, true
	case len(parts) != 3 || parts[0] == "" || parts[1] != "documents" || parts[2] == "":
		return docRef{}, false
	}
	return docRef{collection: parts[0], id: parts[2]}, true
}

// addResources registers the document resource template and answers
// resources/list with the documents of the request's collection. The list is
// built per request rather than registered, because it depends on the
// collection the request is bound to and changes whenever documents are
// ingested.
func addResources(s *mcpsdk.Server, b Backend) {
	read := func(ctx context.Context, req *mcpsdk.ReadResourceRequest) (*mcpsdk.ReadResourceResult, error) {
		return readDocument(ctx, b, req.Params.URI)
	}
	for _, t := range []*mcpsdk.ResourceTemplate{{
		Name:        "document",
		Title:       "Contract text",
		URITemplate: uriScheme + "{collection}/documents/{id}",
		MIMEType:    "text/plain",
		Description: "The canonical text of one contract of the collection. Every span pakton returns is [start, end) in Unicode code points of this text.",
	}, {
		Name:        "document-graph",
		Title:       "Defined terms and cross-references of a contract",
		URITemplate: uriScheme + "{collection}/documents/{id}/graph",
		MIMEType:    "application/json",
		Description: "A contract's definitions (term, defining span, clause path, uses) and cross-references (text, span, clause path, target clause or null, status resolved / within / external / unresolved).",
	}, {
		Name:        "collection-graph",
		Title:       "Contract graph of the collection",
		URITemplate: uriScheme + "{collection}/graph",
		MIMEType:    "application/json",
		Description: "The collection's graph: documents, clauses, defined terms, parties and other instruments (nodes) with defines / uses / refers-to / part-of / next edges.",
	}} {
		s.AddResourceTemplate(t, read)
	}
	s.AddReceivingMiddleware(func(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
		return func(ctx context.Context, method string, req mcpsdk.Request) (mcpsdk.Result, error) {
			if method != "resources/list" {
				return next(ctx, method, req)
			}
			var cursor string
			if p, ok := req.GetParams().(*mcpsdk.ListResourcesParams); ok && p != nil {
				cursor = p.Cursor
			}
			return listDocuments(ctx, b, cursor)
		}
	})
}

// listDocuments answers resources/list. The cursor is the offset of the
// next document in the collection's (name-sorted) list.
func listDocuments(ctx context.Context, b Backend, cursor string) (*mcpsdk.ListResourcesResult, error) {
	name, err := b.Collection(ctx)
	if err != nil {
		return nil, err
	}
	sn, err := b.Snapshot(ctx, name)
	if err != nil {
		return nil, err
	}
	c := sn.Corpus()
	infos, err := c.Store.List(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("listing collection %q: %w", name, err)
	}
	from := 0
	if cursor != "" {
		from, err = strconv.Atoi(cursor)
		if err != nil || from < 0 || from > len(infos) {
			return nil, fmt.Errorf("invalid cursor %q", cursor)
		}
	}
	res := &mcpsdk.ListResourcesResult{Resources: []*mcpsdk.Resource{}}
	to := min(from+resourcePage, len(infos))
	for _, in := range infos[from:to] {
		desc := fmt.Sprintf("%s contract, %d clauses", in.Format, in.Nodes)
		if in.Pages > 0 {
			desc += fmt.Sprintf(", %d pages", in.Pages)
		}
		res.Resources = append(res.Resources, &mcpsdk.Resource{
			URI: docURI(name, in.ID), Name: in.Name, Title: in.Name, MIMEType: "text/plain", Description: desc,
		})
	}
	if to < len(infos) {
		res.NextCursor = strconv.Itoa(to)
	} else {
		res.Resources = append(res.Resources, &mcpsdk.Resource{
			URI: collectionGraphURI(name), Name: "graph", Title: "Contract graph of " + name, MIMEType: "application/json",
			Description: "Documents, clauses, defined terms, parties and cross-references of the collection (per document: " + docGraphURI(name, "<id>") + ")",
		})
	}
	return res, nil
}

// readDocument answers resources/read. A URI naming another collection is
// "not found", exactly like a missing document, so a request learns nothing
// about collections it is not bound to.
func readDocument(ctx context.Context, b Backend, uri string) (*mcpsdk.ReadResourceResult, error) {
	name, err := b.Collection(ctx)
	if err != nil {
		return nil, err
	}
	ref, ok := parseURI(uri)
	if !ok || ref.collection != name {
		return nil, mcpsdk.ResourceNotFoundError(uri)
	}
	sn, err := b.Snapshot(ctx, name)
	if err != nil {
		return nil, err
	}
	c := sn.Corpus()
	if ref.graph && ref.id == "" {
		g, _, err := usecase.CollectionGraph(ctx, c.Store, name, nil)
		if err != nil {
			return nil, fmt.Errorf("graph of collection %q: %w", name, err)
		}
		return jsonResource(uri, map[string]any{"collection": name, "nodes": nonNil(g.Vertices), "edges": nonNil(g.Edges)})
	}
	info, err := c.Store.Info(ctx, name, ref.id)
	if err != nil {
		return nil, mcpsdk.ResourceNotFoundError(uri)
	}
	if ref.graph {
		rec, g, computed, err := docread.ReadGraph(ctx, c.Store, name, info.ID)
		if err != nil {
			return nil, fmt.Errorf("reading the graph of %s: %w", info.Name, err)
		}
		return jsonResource(uri, struct {
			ID   string `json:"id"`
			Name string `json:"name"`
			usecase.GraphView
		}{info.ID, info.Name, usecase.ViewGraph(rec.Tree, g, computed)})
	}
	rec, err := c.Store.Document(ctx, name, info.ID)
	if err != nil {
		return nil, fmt.Errorf("reading document %s: %w", info.Name, err)
	}
	return &mcpsdk.ReadResourceResult{Contents: []*mcpsdk.ResourceContents{{
		URI: uri, MIMEType: "text/plain", Text: rec.Doc.Text,
	}}}, nil
}

// jsonResource answers a resources/read with v as JSON.
func jsonResource(uri string, v any) (*mcpsdk.ReadResourceResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcpsdk.ReadResourceResult{Contents: []*mcpsdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
