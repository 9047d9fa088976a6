package weaviate

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"io/fs"
	"net/url"

	"github.com/pakton/pakton/internal/store"
)

// Blobs (store.Blobs): files every process shares apart from a
// collection's documents — its search index segments. A blob is stored as
// file parts of the collection's tenant (the class documents' files use,
// partSize each) under a document id no document has (blobDoc) and the
// blob's name as version: no document object is written and the
// collection's stamp does not move. CollectGarbage leaves them alone (they
// are the index's, which removes the blobs of the segments it drops).

// blobDoc is the document id blob parts are filed under: store document
// ids are [a-z0-9._-], so no document has it.
const blobDoc = "~blob"

var _ store.Blobs = (*Remote)(nil)

// PutBlob implements store.Blobs. It reads r a part at a time and writes
// the parts a few at a time, so a blob of any size costs a few parts of
// memory.
func (r *Remote) PutBlob(c context.Context, collection, name string, rd io.Reader) error {
	return r.withTenant(c, collection, func(t string) error {
		// The part count is known only at the end, and every part carries
		// it: parts are written with count 0 ("more follow") and the first
		// is written again with the total last.
		var batch []object
		flush := func() error {
			err := r.batch(c, batch)
			batch = batch[:0]
			return err
		}
		buf := make([]byte, partSize)
		part := 0
		var first []byte
		for {
			n, err := io.ReadFull(rd, buf)
			if err == io.EOF && part > 0 {
				break
			}
			if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
				return fmt.Errorf("blob %s: %w", name, err)
			}
			chunk := buf[:n]
			if part == 0 {
				first = append([]byte(nil), chunk...)
			}
			batch = append(batch, r.blobPart(t, name, part, 0, chunk))
			part++
			if len(batch)*partSize >= batchBytes {
				if err := flush(); err != nil {
					return err
				}
			}
			if n < partSize {
				break
			}
		}
		if err := flush(); err != nil {
			return err
		}
		return r.batch(c, []object{r.blobPart(t, name, 0, part, first)})
	})
}

func (r *Remote) blobPart(tenant, name string, part, parts int, data []byte) object {
	return object{Class: r.classFile, ID: fileID(blobDoc, name, "blob", part), Tenant: tenant, Properties: map[string]any{
		"docId": blobDoc, "version": name, "name": "blob", "part": part, "parts": parts,
		"data": base64.StdEncoding.EncodeToString(data),
	}}
}

// GetBlob implements store.Blobs.
func (r *Remote) GetBlob(c context.Context, collection, name string, w io.Writer) error {
	return r.withTenant(c, collection, func(t string) error {
		unfinished := fmt.Errorf("blob %s: still being written: %w", name, fs.ErrNotExist)
		return r.readParts(c, t, blobDoc, name, "blob", "blob "+name, unfinished, func(b []byte) error {
			_, err := w.Write(b)
			return err
		})
	})
}

// readParts reads a file stored in parts (objects fileID(doc, version,
// name, part): Commit's files, PutBlob's blobs) in tenant t and gives each
// part's bytes to put, in order. The number of parts is the one part 0
// records (Commit writes it into every part). what names the file in errors;
// a missing part wraps fs.ErrNotExist. When part 0 records no count, the file
// has one part, or, if unfinished is not nil, readParts returns unfinished (a
// blob whose writer has not finished: PutBlob writes part 0 last).
func (r *Remote) readParts(c context.Context, t, doc, version, name, what string, unfinished error, put func([]byte) error) error {
	parts := 1
	for part := 0; part < parts; part++ {
		var obj struct {
			Properties struct {
				Parts int    `json:"parts"`
				Data  string `json:"data"`
			} `json:"properties"`
		}
		err := r.c.do(c, "GET", "/v1/objects/"+r.classFile+"/"+fileID(doc, version, name, part)+"?tenant="+url.QueryEscape(t)+"&"+r.q(), nil, &obj)
		if isStatus(err, 404) {
			return fmt.Errorf("%s part %d: %w", what, part, fs.ErrNotExist)
		}
		if err != nil {
			return err
		}
		if part == 0 {
			if obj.Properties.Parts <= 0 && unfinished != nil {
				return unfinished
			}
			parts = max(1, obj.Properties.Parts)
		}
		b, err := base64.StdEncoding.DecodeString(obj.Properties.Data)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if err := put(b); err != nil {
			return err
		}
	}
	return nil
}

// DeleteBlob implements store.Blobs (best effort past the first part: the
// rest is unreachable).
func (r *Remote) DeleteBlob(c context.Context, collection, name string) error {
	return r.withTenant(c, collection, func(t string) error {
		var obj struct {
			Properties struct {
				Parts int `json:"parts"`
			} `json:"properties"`
		}
		err := r.c.do(c, "GET", "/v1/objects/"+r.classFile+"/"+fileID(blobDoc, name, "blob", 0)+"?tenant="+url.QueryEscape(t)+"&"+r.q(), nil, &obj)
		if isStatus(err, 404) {
			return nil
		}
		if err != nil {
			return err
		}
		for part := range max(1, obj.Properties.Parts) {
			err := r.c.do(c, "DELETE", "/v1/objects/"+r.classFile+"/"+fileID(blobDoc, name, "blob", part)+"?tenant="+url.QueryEscape(t)+"&"+r.q(), nil, nil)
			if err != nil && !isStatus(err, 404) {
				return err
			}
		}
		return nil
	})
}
