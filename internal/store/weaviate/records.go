package weaviate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/pakton/pakton/internal/parallel"
)

// --- shared records (store.SharedRecords) -------------------------------------

func recordID(kind, id string) string { return objectID("record", kind, id) }

type recordProps struct {
	Kind string `json:"kind"`
	RID  string `json:"rid"`
	Data string `json:"data"`
}

// A listing of one kind of records must be whole however many there are
// (a review's decisions are one record per contract and provision: 25,000
// for 500 contracts and 50 provisions), but one Weaviate query answers at
// most QUERY_MAXIMUM_RESULTS objects (10,000 by default, offset included),
// and the cursor that pages past it ("after") cannot be combined with a
// filter. So a kind with many records is listed in parts by object id: a
// record's id is a hash of its kind and id (objectID), uniform over the hex
// digits, and "_id Like <prefix>*" is a seek in the id index, so the
// records of a kind under each prefix of d hex digits are about n/16^d, each
// part is one query from offset 0, and a part that comes back full is split
// again. Nothing is read by offset: a record updated during the listing
// (Weaviate gives it a new internal doc id, which shifts offsets) is never
// skipped, because it keeps its object id. Records written before this
// scheme need no migration — their ids were always objectID(kind, id).
//
// recordPart is what the first query asks for (most kinds are listed by it
// alone) and the size a part is aimed at; recordLimit is what a part's
// query asks for (at most QUERY_MAXIMUM_RESULTS: a cluster with a lower
// setting answers with an error, which the listing returns).
const (
	recordPart  = 2000
	recordLimit = 10000
)

// Records implements store.SharedRecords. Every node is asked for the
// records of the kind, all of them (filtered queries, in parts past
// recordPart: the cost grows with the records of that kind, not with all
// records). A record every node returned with the
// same data is taken as is; any other — listed by some nodes only, with
// different data, or when a node did not answer — is read back at the
// consistency level, so a deleted record (a revoked key) is never taken from
// a replica that missed the deletion.
func (r *Remote) Records(ctx context.Context, kind string) (map[string][]byte, error) {
	c := ctx
	hosts := r.c.o.Hosts
	got, firstErr := fromEveryNode(hosts, func(h string) (map[string]string, error) { return r.recordsFrom(c, h, kind) })
	if len(got) == 0 {
		return nil, fmt.Errorf("list records: %w", firstErr)
	}
	all := len(got) == len(hosts)
	out := map[string][]byte{}
	var doubt []string
	for id, agree := range agreement(got, func(a, b string) bool { return a == b }) {
		if agree && all {
			out[id] = []byte(got[0][id])
		} else {
			doubt = append(doubt, id)
		}
	}
	// With a node down every record is in doubt: read them back a few at a
	// time, not one after another (25,000 decisions at ~2 ms each).
	var mu sync.Mutex
	var errs []error
	parallel.All(len(doubt), 8, func(i int) {
		id := doubt[i]
		b, err := r.Record(ctx, kind, id)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			errs = append(errs, err)
		default:
			out[id] = b
		}
	})
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return out, nil
}

// recordsFrom lists the records of a kind through one host: one query when
// they are fewer than recordPart, else in parts by object id prefix, as many
// as the host's count of the kind asks for (one part up to recordPart).
func (r *Remote) recordsFrom(ctx context.Context, host, kind string) (map[string]string, error) {
	out := map[string]string{}
	full, err := r.recordQuery(ctx, host, kind, "", recordPart, out)
	if err != nil || !full {
		return out, err
	}
	n, err := r.recordCount(ctx, host, kind)
	if err != nil {
		return nil, err
	}
	depth := 0 // 16^depth parts of at most ~recordPart records
	for parts := 1; n/parts > recordPart; parts *= 16 {
		depth++
	}
	if err := r.recordsUnder(ctx, host, kind, "", depth, out); err != nil {
		return nil, err
	}
	return out, nil
}

// recordsUnder lists into out the records of a kind whose object id starts
// with prefix: split into the 16 longer prefixes while skip > 0, else one
// query, split again if it came back full.
func (r *Remote) recordsUnder(ctx context.Context, host, kind, prefix string, skip int, out map[string]string) error {
	if skip == 0 {
		full, err := r.recordQuery(ctx, host, kind, prefix, recordLimit, out)
		if err != nil || !full {
			return err
		}
		skip = 1
	}
	if len(prefix) >= len("00000000-0000-0000-0000-000000000000") {
		return fmt.Errorf("list records of %s: one id answered %d records", kind, recordLimit) // not a UUID: cannot happen
	}
	next := "0123456789abcdef"
	if n := len(prefix); n == 8 || n == 13 || n == 18 || n == 23 {
		next = "-"
	}
	for _, c := range next {
		if err := r.recordsUnder(ctx, host, kind, prefix+string(c), skip-1, out); err != nil {
			return err
		}
	}
	return nil
}

// recordQuery adds to out the records of a kind whose object id starts with
// prefix ("" = all), at most limit, through one host, and reports whether
// the answer was full (there may be more).
func (r *Remote) recordQuery(ctx context.Context, host, kind, prefix string, limit int, out map[string]string) (bool, error) {
	var res struct {
		Get map[string][]recordProps `json:"Get"`
	}
	if err := r.graphQL(ctx, host, fmt.Sprintf(`{Get{%s(where:%s,limit:%d){rid data}}}`, r.classRecord, recordWhere(kind, prefix), limit), &res); err != nil {
		return false, fmt.Errorf("list records of %s: %w", kind, err)
	}
	page := res.Get[r.classRecord]
	for _, p := range page {
		out[p.RID] = p.Data
	}
	return len(page) >= limit, nil
}

// recordCount is the number of records of a kind one host counts.
func (r *Remote) recordCount(ctx context.Context, host, kind string) (int, error) {
	var res struct {
		Aggregate map[string][]struct {
			Meta struct {
				Count int `json:"count"`
			} `json:"meta"`
		} `json:"Aggregate"`
	}
	if err := r.graphQL(ctx, host, fmt.Sprintf(`{Aggregate{%s(where:%s){meta{count}}}}`, r.classRecord, recordWhere(kind, "")), &res); err != nil {
		return 0, fmt.Errorf("count records of %s: %w", kind, err)
	}
	if a := res.Aggregate[r.classRecord]; len(a) > 0 {
		return a[0].Meta.Count, nil
	}
	return 0, nil
}

// recordWhere is the GraphQL filter on a kind and an object id prefix.
func recordWhere(kind, prefix string) string {
	kq, _ := json.Marshal(kind)
	w := fmt.Sprintf(`{path:["kind"],operator:Equal,valueText:%s}`, kq)
	if prefix == "" {
		return w
	}
	return fmt.Sprintf(`{operator:And,operands:[%s,{path:["_id"],operator:Like,valueText:"%s*"}]}`, w, prefix)
}

// graphQL runs a GraphQL query through one host and decodes its data into
// out; an error in the answer is an error.
func (r *Remote) graphQL(ctx context.Context, host, query string, out any) error {
	payload, _ := json.Marshal(map[string]string{"query": query})
	status, body, err := r.c.once(ctx, r.c.o.Timeout, host, "POST", "/v1/graphql", payload)
	if err == nil && status != 200 {
		err = &statusError{"POST", "/v1/graphql", status, string(body)}
	}
	if err != nil {
		return err
	}
	var res struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		return err
	}
	if len(res.Errors) > 0 {
		return errors.New(res.Errors[0].Message)
	}
	return json.Unmarshal(res.Data, out)
}

// Record implements store.SharedRecords: one record, read at the
// consistency level; a missing one is an error wrapping fs.ErrNotExist.
func (r *Remote) Record(ctx context.Context, kind, id string) ([]byte, error) {
	var obj struct {
		Properties recordProps `json:"properties"`
	}
	err := r.c.do(ctx, "GET", "/v1/objects/"+r.classRecord+"/"+recordID(kind, id)+"?"+r.q(), nil, &obj)
	if isStatus(err, 404) {
		return nil, fmt.Errorf("record %s/%s: %w", kind, id, fs.ErrNotExist)
	}
	if err != nil {
		return nil, err
	}
	return []byte(obj.Properties.Data), nil
}

// PutRecord implements store.SharedRecords. A record is at most
// MaxRecordBytes: what the answers that read it back are bounded by.
func (r *Remote) PutRecord(ctx context.Context, kind, id string, data []byte) error {
	if len(data) > MaxRecordBytes {
		return fmt.Errorf("record %s/%s: %d bytes, more than the %d a record may hold", kind, id, len(data), MaxRecordBytes)
	}
	return r.putRecords(ctx, kind, map[string][]byte{id: data})
}

// putRecords writes records of one kind in batches.
func (r *Remote) putRecords(ctx context.Context, kind string, recs map[string][]byte) error {
	objs := make([]object, 0, len(recs))
	for id, data := range recs {
		objs = append(objs, object{Class: r.classRecord, ID: recordID(kind, id), Properties: map[string]any{
			"kind": kind, "rid": id, "data": string(data)}})
	}
	return r.batch(ctx, objs)
}

// DeleteRecord implements store.SharedRecords.
func (r *Remote) DeleteRecord(ctx context.Context, kind, id string) error {
	err := r.c.do(ctx, "DELETE", "/v1/objects/"+r.classRecord+"/"+recordID(kind, id)+"?"+r.q(), nil, nil)
	if isStatus(err, 404) {
		return fmt.Errorf("record %s/%s: %w", kind, id, fs.ErrNotExist)
	}
	return err
}
