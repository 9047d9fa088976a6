package weaviate

import (
	"context"
	"encoding/base64"
)

// WriteOrphan writes the file parts of a version without its document
// object: what a commit cut short between the two leaves behind.
func (r *Remote) WriteOrphan(ctx context.Context, collection, id, version, name string, b []byte) (int, error) {
	tenant, err := r.tenant(ctx, collection)
	if err != nil {
		return 0, err
	}
	n := max(1, (len(b)+partSize-1)/partSize)
	var objs []object
	for i := range n {
		chunk := b[min(len(b), i*partSize):min(len(b), (i+1)*partSize)]
		objs = append(objs, object{Class: r.classFile, ID: fileID(id, version, name, i), Tenant: tenant, Properties: map[string]any{
			"docId": id, "version": version, "name": name, "part": i, "parts": n, "data": base64.StdEncoding.EncodeToString(chunk)}})
	}
	return n, r.batch(ctx, objs)
}

// PutRecords writes records of one kind in batches, as PutRecord writes
// one (the same objects), for tests that need many.
func (r *Remote) PutRecords(ctx context.Context, kind string, recs map[string][]byte) error {
	return r.putRecords(ctx, kind, recs)
}
