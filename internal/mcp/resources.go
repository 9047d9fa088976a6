package mcp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// uriScheme prefixes every document resource: pakton://<collection>/documents/<id>.
const uriScheme = "pakton://"

// resourcePage is the most documents one resources/list answer names; the
// next cursor continues after them.
const resourcePage = 500

func docURI(collection, id string) string {
	return uriScheme + collection + "/documents/" + id
}

type docRef struct{ collection, id string }

// parseURI splits a document resource URI.
func parseURI(uri string) (docRef, bool) {
	rest, ok := strings.CutPrefix(uri, uriScheme)
	if !ok {
		return docRef{}, false
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 || parts[0] == "" || parts[1] != "documents" || parts[2] == "" {
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
	s.AddResourceTemplate(&mcpsdk.ResourceTemplate{
		Name:        "document",
		Title:       "Contract text",
		URITemplate: uriScheme + "{collection}/documents/{id}",
		MIMEType:    "text/plain",
		Description: "The canonical text of one contract of the collection. Every span pakton returns is [start, end) in Unicode code points of this text.",
	}, func(ctx context.Context, req *mcpsdk.ReadResourceRequest) (*mcpsdk.ReadResourceResult, error) {
		return readDocument(ctx, b, req.Params.URI)
	})
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
	c, err := b.Corpus(ctx, name)
	if err != nil {
		return nil, err
	}
	infos, err := c.Store.List(name)
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
	c, err := b.Corpus(ctx, name)
	if err != nil {
		return nil, err
	}
	info, err := c.Store.Info(name, ref.id)
	if err != nil {
		return nil, mcpsdk.ResourceNotFoundError(uri)
	}
	rec, err := c.Store.Document(name, info.ID)
	if err != nil {
		return nil, fmt.Errorf("reading document %s: %w", info.Name, err)
	}
	return &mcpsdk.ReadResourceResult{Contents: []*mcpsdk.ResourceContents{{
		URI: uri, MIMEType: "text/plain", Text: rec.Doc.Text,
	}}}, nil
}
