package weaviate

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"time"

	"github.com/pakton/pakton/internal/store"
)

// --- documents ----------------------------------------------------------------

type docProps struct {
	DocID   string `json:"docId"`
	Version string `json:"version"`
	Entry   string `json:"entry"`
	Files   string `json:"files"` // JSON: name -> parts
}

func docID(id string) string { return objectID("doc", id) }

func fileID(id, version, name string, part int) string {
	return objectID("file", id, version, name, strconv.Itoa(part))
}

func (p docProps) remote() store.RemoteEntry {
	return store.RemoteEntry{ID: p.DocID, Version: p.Version, Entry: []byte(p.Entry)}
}

// Entry implements store.Remote.
func (r *Remote) Entry(ctx context.Context, collection, id string) (store.RemoteEntry, error) {
	p, err := r.doc(ctx, collection, id)
	return p.remote(), err
}

func (r *Remote) doc(ctx context.Context, collection, id string) (docProps, error) {
	var obj struct {
		Properties docProps `json:"properties"`
	}
	err := r.withTenant(ctx, collection, func(t string) error {
		return r.c.do(ctx, "GET", "/v1/objects/"+r.classDoc+"/"+docID(id)+"?tenant="+url.QueryEscape(t)+"&"+r.q(), nil, &obj)
	})
	if isStatus(err, 404) {
		return docProps{}, fmt.Errorf("document %q: %w", id, store.ErrNotFound)
	}
	return obj.Properties, err
}

// Entries implements store.Remote. A listing is served by one replica of
// the tenant, which may have missed recent writes while it was down (async
// replication repairs it within a minute), so each node is asked for its
// listing and the union taken; a document not listed by every node, or
// listed at different versions, is read back at the consistency level to
// decide.
func (r *Remote) Entries(ctx context.Context, collection string) ([]store.RemoteEntry, error) {
	c := ctx
	var out []store.RemoteEntry
	err := r.withTenant(c, collection, func(t string) error {
		got, firstErr := fromEveryNode(r.c.o.Hosts, func(h string) (map[string]docProps, error) { return r.listFrom(c, h, t) })
		if len(got) == 0 {
			// Every node failed on its own: fall back to the retrying client.
			l, err := r.listFrom(c, "", t)
			if err != nil {
				return errors.Join(firstErr, err)
			}
			got = append(got, l)
		}
		ids := agreement(got, func(a, b docProps) bool { return a.Version == b.Version })
		out = make([]store.RemoteEntry, 0, len(ids))
		for id, agree := range ids {
			p := got[0][id]
			if !agree {
				var err error
				p, err = r.doc(c, collection, id)
				if errors.Is(err, store.ErrNotFound) {
					continue
				}
				if err != nil {
					return err
				}
			}
			out = append(out, p.remote())
		}
		return nil
	})
	return out, err
}

// listFrom lists a tenant's documents through one host ("" = any, with
// retries).
func (r *Remote) listFrom(ctx context.Context, host, tenant string) (map[string]docProps, error) {
	out := map[string]docProps{}
	after := ""
	const page = 200
	for {
		path := "/v1/objects?class=" + r.classDoc + "&tenant=" + url.QueryEscape(tenant) + "&limit=" + strconv.Itoa(page)
		if after != "" {
			path += "&after=" + after
		}
		var list struct {
			Objects []struct {
				ID         string   `json:"id"`
				Properties docProps `json:"properties"`
			} `json:"objects"`
		}
		var err error
		if host == "" {
			err = r.c.do(ctx, "GET", path, nil, &list)
		} else {
			var status int
			var body []byte
			status, body, err = r.c.once(ctx, r.c.o.Timeout, host, "GET", path, nil)
			if err == nil && status != 200 {
				err = &statusError{"GET", path, status, string(body)}
			}
			if err == nil {
				err = json.Unmarshal(body, &list)
			}
		}
		if err != nil {
			return nil, err
		}
		for _, o := range list.Objects {
			out[o.Properties.DocID] = o.Properties
		}
		if len(list.Objects) < page {
			return out, nil
		}
		after = list.Objects[len(list.Objects)-1].ID
	}
}

// ReadFile implements store.Remote.
func (r *Remote) ReadFile(ctx context.Context, collection, id, version, name string) ([]byte, error) {
	var data []byte
	err := r.withTenant(ctx, collection, func(t string) error {
		data = nil
		what := fmt.Sprintf("document %q version %s: %s", id, version, name)
		return r.readParts(ctx, t, id, version, name, what, nil, func(b []byte) error {
			data = append(data, b...)
			return nil
		})
	})
	return data, err
}

// Commit implements store.Remote.
func (r *Remote) Commit(ctx context.Context, collection string, vs []store.RemoteVersion) error {
	c := ctx
	return r.withTenant(c, collection, func(t string) error {
		old, err := r.docsByID(c, t, vs)
		if err != nil {
			return err
		}
		if err := r.bump(c, collection); err != nil {
			return err
		}
		var files, docs []object
		for _, v := range vs {
			parts := map[string]int{}
			for name, b := range v.Files {
				n := max(1, (len(b)+partSize-1)/partSize)
				parts[name] = n
				for i := range n {
					chunk := b[min(len(b), i*partSize):min(len(b), (i+1)*partSize)]
					files = append(files, object{Class: r.classFile, ID: fileID(v.ID, v.Version, name, i), Tenant: t, Properties: map[string]any{
						"docId": v.ID, "version": v.Version, "name": name, "part": i, "parts": n,
						"data": base64.StdEncoding.EncodeToString(chunk),
					}})
				}
			}
			fj, _ := json.Marshal(parts)
			docs = append(docs, object{Class: r.classDoc, ID: docID(v.ID), Tenant: t, Properties: map[string]any{
				"docId": v.ID, "version": v.Version, "entry": string(v.Entry), "files": string(fj),
			}})
		}
		if err := r.batch(c, files); err != nil {
			return err
		}
		if err := r.batch(c, docs); err != nil {
			return err
		}
		if err := r.bump(c, collection); err != nil {
			return err
		}
		for _, p := range old {
			r.deleteFiles(c, t, p)
		}
		return nil
	})
}

// docsByID returns the current objects of the documents about to be
// replaced.
func (r *Remote) docsByID(ctx context.Context, tenant string, vs []store.RemoteVersion) ([]docProps, error) {
	var out []docProps
	for _, v := range vs {
		var obj struct {
			Properties docProps `json:"properties"`
		}
		err := r.c.do(ctx, "GET", "/v1/objects/"+r.classDoc+"/"+docID(v.ID)+"?tenant="+url.QueryEscape(tenant)+"&"+r.q(), nil, &obj)
		if isStatus(err, 404) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if obj.Properties.Version != v.Version {
			out = append(out, obj.Properties)
		}
	}
	return out, nil
}

// deleteFiles removes the files of a replaced or deleted version, best
// effort: what is left is unreachable (no entry names that version).
func (r *Remote) deleteFiles(ctx context.Context, tenant string, p docProps) {
	var parts map[string]int
	if json.Unmarshal([]byte(p.Files), &parts) != nil {
		return
	}
	for name, n := range parts {
		for i := range n {
			err := r.c.do(ctx, "DELETE", "/v1/objects/"+r.classFile+"/"+fileID(p.DocID, p.Version, name, i)+"?tenant="+url.QueryEscape(tenant)+"&"+r.q(), nil, nil)
			if err != nil && !isStatus(err, 404) {
				slog.Debug("weaviate: could not remove a replaced file part", "doc", p.DocID, "version", p.Version, "file", name, "err", err)
			}
		}
	}
}

// Delete implements store.Remote.
func (r *Remote) Delete(ctx context.Context, collection, id string) error {
	c := ctx
	return r.withTenant(c, collection, func(t string) error {
		var obj struct {
			Properties docProps `json:"properties"`
		}
		err := r.c.do(c, "GET", "/v1/objects/"+r.classDoc+"/"+docID(id)+"?tenant="+url.QueryEscape(t)+"&"+r.q(), nil, &obj)
		if isStatus(err, 404) {
			return fmt.Errorf("document %q: %w", id, store.ErrNotFound)
		}
		if err != nil {
			return err
		}
		if err := r.bump(c, collection); err != nil {
			return err
		}
		err = r.c.do(c, "DELETE", "/v1/objects/"+r.classDoc+"/"+docID(id)+"?tenant="+url.QueryEscape(t)+"&"+r.q(), nil, nil)
		if err != nil && !isStatus(err, 404) {
			return err
		}
		if err := r.bump(c, collection); err != nil {
			return err
		}
		r.deleteFiles(c, t, obj.Properties)
		return nil
	})
}

// batch upserts objects in requests of at most ~batchBytes, checking every
// object's result; a batch with failures is sent again (upserts by id are
// idempotent) until the retry budget is spent.
func (r *Remote) batch(ctx context.Context, objs []object) error {
	for len(objs) > 0 {
		n, size := 0, 0
		for n < len(objs) && (n == 0 || size < batchBytes) {
			if d, ok := objs[n].Properties["data"].(string); ok {
				size += len(d)
			}
			size += 512
			n++
		}
		if err := r.batchOnce(ctx, objs[:n]); err != nil {
			return err
		}
		objs = objs[n:]
	}
	return nil
}

func (r *Remote) batchOnce(ctx context.Context, objs []object) error {
	deadline := time.Now().Add(r.c.o.Retry)
	delay := 200 * time.Millisecond
	for {
		var res []struct {
			ID     string `json:"id"`
			Result struct {
				Errors *struct {
					Error []struct {
						Message string `json:"message"`
					} `json:"error"`
				} `json:"errors"`
			} `json:"result"`
		}
		err := r.c.do(ctx, "POST", "/v1/batch/objects?"+r.q(), map[string]any{"objects": objs}, &res)
		if err == nil {
			var msgs []string
			for _, o := range res {
				if e := o.Result.Errors; e != nil && len(e.Error) > 0 {
					msgs = append(msgs, e.Error[0].Message)
				}
			}
			if len(msgs) == 0 {
				return nil
			}
			err = fmt.Errorf("%d of %d objects failed: %s", len(msgs), len(objs), msgs[0])
			if tenantMissing(err) {
				return err
			}
		}
		var se *statusError
		if errors.As(err, &se) && se.Code < 500 && se.Code != 429 {
			return err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("batch write: %w", ctx.Err())
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("batch write: %w", err)
		}
		r.c.retries.Add(1)
		if err := sleepCtx(ctx, delay); err != nil {
			return fmt.Errorf("batch write: %w", err)
		}
		delay = min(2*delay, 2*time.Second)
	}
}

// Ping reports whether any node of the URL is ready, trying each once with
// a short timeout.
func (r *Remote) Ping(ctx context.Context) error {
	var errs []error
	for _, h := range r.c.o.Hosts {
		status, _, err := r.c.once(ctx, 3*time.Second, h, "GET", "/v1/.well-known/ready", nil)
		if err == nil && status == 200 {
			return nil
		}
		if err == nil {
			err = fmt.Errorf("HTTP %d", status)
		}
		errs = append(errs, fmt.Errorf("%s: %w", h, err))
	}
	return fmt.Errorf("no Weaviate node of %s is ready: %w", r.loc, errors.Join(errs...))
}
