package weaviate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/pakton/pakton/internal/store"
)

// --- garbage: file parts no document names (store.Collector) ---------------

// filePart is one stored file part as a listing shows it.
type filePart struct {
	ID      string
	DocID   string
	Version string
	Updated time.Time
}

// CollectGarbage implements store.Collector. A commit writes a version's
// file parts before the document object that names them, and removes the
// replaced version's parts after: a commit cut short between the two (a
// killed process, a cluster that stopped answering) leaves parts that no
// document names and that nothing would ever read or remove. This lists
// the parts of a collection on every node (without their data), keeps
// those whose version is not the live version of their document and that
// were last written more than minAge ago — so the parts of a commit still
// in progress are never taken — reads each such document again at the
// consistency level to be sure, and deletes the parts.
func (r *Remote) CollectGarbage(ctx context.Context, collection string, minAge time.Duration) (store.GCStats, error) {
	c := ctx
	var st store.GCStats
	err := r.withTenant(c, collection, func(t string) error {
		parts, err := r.fileParts(c, t)
		if err != nil {
			return err
		}
		st.Parts = len(parts)
		entries, err := r.Entries(ctx, collection)
		if err != nil {
			return err
		}
		live := map[string]string{}
		for _, e := range entries {
			live[e.ID] = e.Version
		}
		cutoff := time.Now().Add(-minAge)
		type key struct{ doc, version string }
		cand := map[key][]filePart{}
		for _, p := range parts {
			if live[p.DocID] == p.Version || p.DocID == blobDoc {
				continue // a live version's, or a blob (blobs.go)
			}
			if p.Updated.After(cutoff) {
				st.Young++
				continue
			}
			k := key{p.DocID, p.Version}
			cand[k] = append(cand[k], p)
		}
		for k, ps := range cand {
			d, err := r.doc(c, collection, k.doc)
			if err == nil && d.Version == k.version {
				continue // committed meanwhile (or a listing missed it)
			}
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
			for _, p := range ps {
				err := r.c.do(c, "DELETE", "/v1/objects/"+r.classFile+"/"+p.ID+"?tenant="+url.QueryEscape(t)+"&"+r.q(), nil, nil)
				if err != nil && !isStatus(err, 404) {
					return fmt.Errorf("remove orphan part of %s version %s: %w", k.doc, k.version, err)
				}
				st.Removed++
			}
		}
		return nil
	})
	return st, err
}

// fileParts lists a tenant's file parts, without their data, as the union
// of every node's listing (a part written at QUORUM may be missing from one
// replica).
func (r *Remote) fileParts(ctx context.Context, tenant string) ([]filePart, error) {
	lists, firstErr := fromEveryNode(r.c.o.Hosts, func(h string) (map[string]filePart, error) { return r.filePartsFrom(ctx, h, tenant) })
	if len(lists) == 0 {
		return nil, fmt.Errorf("list file parts: %w", firstErr)
	}
	all := map[string]filePart{}
	for _, l := range lists {
		for id, p := range l {
			if q, seen := all[id]; !seen || p.Updated.After(q.Updated) {
				all[id] = p
			}
		}
	}
	out := make([]filePart, 0, len(all))
	for _, p := range all {
		out = append(out, p)
	}
	return out, nil
}

func (r *Remote) filePartsFrom(ctx context.Context, host, tenant string) (map[string]filePart, error) {
	out := map[string]filePart{}
	tq, _ := json.Marshal(tenant)
	const page = 1000
	after := ""
	for {
		args := fmt.Sprintf("tenant:%s,limit:%d", tq, page)
		if after != "" {
			aq, _ := json.Marshal(after)
			args += ",after:" + string(aq)
		}
		q := fmt.Sprintf(`{Get{%s(%s){docId version _additional{id lastUpdateTimeUnix}}}}`, r.classFile, args)
		payload, _ := json.Marshal(map[string]string{"query": q})
		status, body, err := r.c.once(ctx, r.c.o.Timeout, host, "POST", "/v1/graphql", payload)
		if err == nil && status != 200 {
			err = &statusError{"POST", "/v1/graphql", status, string(body)}
		}
		if err != nil {
			return nil, err
		}
		var res struct {
			Data struct {
				Get map[string][]struct {
					DocID      string `json:"docId"`
					Version    string `json:"version"`
					Additional struct {
						ID      string `json:"id"`
						Updated string `json:"lastUpdateTimeUnix"`
					} `json:"_additional"`
				} `json:"Get"`
			} `json:"data"`
			Errors []struct {
				Message string `json:"message"`
			} `json:"errors"`
		}
		if err := json.Unmarshal(body, &res); err != nil {
			return nil, fmt.Errorf("list file parts: %w", err)
		}
		if len(res.Errors) > 0 {
			return nil, fmt.Errorf("list file parts: %s", res.Errors[0].Message)
		}
		got := res.Data.Get[r.classFile]
		for _, o := range got {
			ms, _ := strconv.ParseInt(o.Additional.Updated, 10, 64)
			out[o.Additional.ID] = filePart{ID: o.Additional.ID, DocID: o.DocID, Version: o.Version, Updated: time.UnixMilli(ms)}
		}
		if len(got) < page {
			return out, nil
		}
		after = got[len(got)-1].Additional.ID
	}
}
