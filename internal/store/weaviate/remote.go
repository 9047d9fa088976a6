package weaviate

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pakton/pakton/internal/parallel"
	"github.com/pakton/pakton/internal/store"
)

// Class name suffixes; the names are "Pakton" + namespace + suffix.
const (
	suffixCollection = "Collection"
	suffixDoc        = "Doc"
	suffixFile       = "File"
	suffixRecord     = "Record"
)

// partSize is the largest file part stored in one object (before base64).
const partSize = 2 << 20

// batchBytes is roughly the largest batch request body sent at once.
const batchBytes = 8 << 20

// Remote is a store.Remote on a Weaviate cluster.
type Remote struct {
	c   *client
	loc string

	// Class names (Options.Namespace).
	classCollection, classDoc, classFile, classRecord string

	mu      sync.Mutex
	tenants map[string]string // collection -> tenant, as last read
	stamps  map[string]stampAt
}

// stampAt is a collection's stamp as read at a time.
type stampAt struct {
	stamp uint64
	at    time.Time
}

var (
	_ store.Remote        = (*Remote)(nil)
	_ store.SharedRecords = (*Remote)(nil)
	_ store.Collector     = (*Remote)(nil)
	_ interface {
		Ping(context.Context) error
	} = (*Remote)(nil) // store.Ping asks for it
)

// Open connects to the cluster a weaviate:// URL names, checks that it
// answers, and creates pakton's classes when they are absent.
func Open(ctx context.Context, rawURL string) (*Remote, Options, error) {
	o, err := ParseURL(rawURL)
	if err != nil {
		return nil, o, err
	}
	r, err := Connect(ctx, o)
	return r, o, err
}

// OpenStore opens a pakton store on the cluster a weaviate:// URL names.
func OpenStore(ctx context.Context, rawURL string) (*store.Store, error) {
	r, o, err := Open(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	st, err := store.OpenRemote(r, o.Local)
	if err != nil {
		r.Close()
		return nil, err
	}
	return st, nil
}

// Connect is Open with parsed options.
func Connect(ctx context.Context, o Options) (*Remote, error) {
	r := &Remote{c: newClient(o), tenants: map[string]string{}, stamps: map[string]stampAt{}}
	r.classCollection = "Pakton" + o.Namespace + suffixCollection
	r.classDoc = "Pakton" + o.Namespace + suffixDoc
	r.classFile = "Pakton" + o.Namespace + suffixFile
	r.classRecord = "Pakton" + o.Namespace + suffixRecord
	r.loc = Scheme + strings.Join(o.Hosts, ",")
	// Fail fast and clearly when nothing listens: a short budget for the
	// first contact.
	qo := o
	qo.Retry, qo.Timeout = min(o.Retry, 4*time.Second), min(o.Timeout, 5*time.Second)
	ready := newClient(qo)
	var meta struct {
		Version string `json:"version"`
	}
	if err := ready.do(ctx, "GET", "/v1/meta", nil, &meta); err != nil {
		return nil, fmt.Errorf("store %s: cannot reach Weaviate: %w", r.loc, err)
	}
	if err := r.ensureSchema(ctx); err != nil {
		return nil, fmt.Errorf("store %s: %w", r.loc, err)
	}
	return r, nil
}

// Location implements store.Remote.
func (r *Remote) Location() string { return r.loc }

// Close implements store.Remote.
func (r *Remote) Close() error {
	r.c.http.CloseIdleConnections()
	return nil
}

// Stats returns the number of requests sent and of retries.
func (r *Remote) Stats() (requests, retries int64) {
	return r.c.requests.Load(), r.c.retries.Load()
}

// --- schema ---------------------------------------------------------------

type property struct {
	Name            string   `json:"name"`
	DataType        []string `json:"dataType"`
	Tokenization    string   `json:"tokenization,omitempty"`
	IndexFilterable *bool    `json:"indexFilterable,omitempty"`
	IndexSearchable *bool    `json:"indexSearchable,omitempty"`
}

func ptr[T any](v T) *T { return &v }

func keyProp(name string) property {
	return property{Name: name, DataType: []string{"text"}, Tokenization: "field", IndexFilterable: ptr(true), IndexSearchable: ptr(false)}
}

func dataProp(name, typ string) property {
	p := property{Name: name, DataType: []string{typ}, IndexFilterable: ptr(false)}
	if typ == "text" {
		p.IndexSearchable = ptr(false)
	}
	return p
}

func (r *Remote) classDef(name string) map[string]any {
	def := map[string]any{
		"class":             name,
		"vectorizer":        "none",
		"vectorIndexConfig": map[string]any{"skip": true},
		"replicationConfig": map[string]any{"factor": r.c.o.Replicas, "asyncEnabled": r.c.o.Replicas > 1},
	}
	switch name {
	case r.classCollection:
		def["description"] = "pakton collections (one object each)"
		def["shardingConfig"] = map[string]any{"desiredCount": r.c.o.Shards}
		def["properties"] = []property{keyProp("name"), dataProp("tenant", "text"), dataProp("created", "text"), dataProp("stamp", "text")}
	case r.classDoc:
		def["description"] = "pakton documents: one object per live document (tenant = collection)"
		def["multiTenancyConfig"] = map[string]any{"enabled": true, "autoTenantCreation": false, "autoTenantActivation": true}
		def["properties"] = []property{keyProp("docId"), keyProp("version"), dataProp("entry", "text"), dataProp("files", "text")}
	case r.classRecord:
		def["description"] = "pakton records shared by every process using the store (API keys, jobs, reports, reviews)"
		def["properties"] = []property{keyProp("kind"), keyProp("rid"), dataProp("data", "text")}
	case r.classFile:
		def["description"] = "pakton document files, in parts (tenant = collection)"
		def["multiTenancyConfig"] = map[string]any{"enabled": true, "autoTenantCreation": false, "autoTenantActivation": true}
		def["properties"] = []property{keyProp("docId"), keyProp("version"), keyProp("name"),
			dataProp("part", "int"), dataProp("parts", "int"), dataProp("data", "blob")}
	}
	return def
}

// ensureSchema creates the classes that do not exist. A schema change sent
// while the cluster elects a leader may hang without an answer: each
// attempt has a timeout, and existence is checked again before the next.
func (r *Remote) ensureSchema(ctx context.Context) error {
	for _, name := range []string{r.classCollection, r.classDoc, r.classFile, r.classRecord} {
		if err := r.ensureClass(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

func (r *Remote) ensureClass(ctx context.Context, name string) error {
	deadline := time.Now().Add(r.c.o.Retry)
	for {
		var got struct {
			Replication struct {
				Factor int `json:"factor"`
			} `json:"replicationConfig"`
		}
		err := r.c.do(ctx, "GET", "/v1/schema/"+name, nil, &got)
		if err == nil {
			if got.Replication.Factor != r.c.o.Replicas && name == r.classDoc {
				slog.Debug("weaviate: class exists with another replication factor; keeping it", "class", name, "factor", got.Replication.Factor, "asked", r.c.o.Replicas)
			}
			return nil
		}
		if !isStatus(err, 404) {
			return fmt.Errorf("read schema of %s: %w", name, err)
		}
		err = r.c.doTimeout(ctx, 20*time.Second, "POST", "/v1/schema", r.classDef(name), nil)
		if err == nil || isStatus(err, 422) && strings.Contains(err.Error(), "already exists") {
			continue // check that it is there
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("create class %s: %w", name, err)
		}
		slog.Debug("weaviate: create class failed; checking and retrying", "class", name, "err", err)
		time.Sleep(time.Second)
	}
}

// --- collections ------------------------------------------------------------

type object struct {
	Class      string         `json:"class"`
	ID         string         `json:"id"`
	Tenant     string         `json:"tenant,omitempty"`
	Properties map[string]any `json:"properties"`
}

type collectionProps struct {
	Name    string `json:"name"`
	Tenant  string `json:"tenant"`
	Created string `json:"created"`
	Stamp   string `json:"stamp"`
}

func collectionID(name string) string { return objectID("collection", name) }

func (r *Remote) q() string { return "consistency_level=" + r.c.o.Consistency }

// collection reads a collection's object: ErrNotFound when absent.
func (r *Remote) collection(ctx context.Context, name string) (collectionProps, error) {
	var obj struct {
		Properties collectionProps `json:"properties"`
	}
	err := r.c.do(ctx, "GET", "/v1/objects/"+r.classCollection+"/"+collectionID(name)+"?"+r.q(), nil, &obj)
	if isStatus(err, 404) {
		return collectionProps{}, fmt.Errorf("collection %q: %w", name, store.ErrNotFound)
	}
	if err != nil {
		return collectionProps{}, err
	}
	r.mu.Lock()
	r.tenants[name] = obj.Properties.Tenant
	r.mu.Unlock()
	return obj.Properties, nil
}

// tenant returns a collection's tenant name, from memory when known.
func (r *Remote) tenant(ctx context.Context, name string) (string, error) {
	r.mu.Lock()
	t, ok := r.tenants[name]
	r.mu.Unlock()
	if ok {
		return t, nil
	}
	p, err := r.collection(ctx, name)
	return p.Tenant, err
}

// forget drops a cached tenant (after an error that may mean the collection
// was deleted or re-created by another process).
func (r *Remote) forget(name string) {
	r.mu.Lock()
	delete(r.tenants, name)
	delete(r.stamps, name)
	r.mu.Unlock()
}

// withTenant runs fn with the collection's tenant, once more with a fresh
// look-up when the tenant turns out not to exist.
func (r *Remote) withTenant(ctx context.Context, collection string, fn func(tenant string) error) error {
	for attempt := 0; ; attempt++ {
		t, err := r.tenant(ctx, collection)
		if err != nil {
			return err
		}
		err = fn(t)
		if attempt == 0 && err != nil && tenantMissing(err) {
			r.forget(collection)
			continue
		}
		if err != nil && tenantMissing(err) {
			return fmt.Errorf("collection %q: %w", collection, store.ErrNotFound)
		}
		return err
	}
}

func tenantMissing(err error) bool {
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "tenant not found") || strings.Contains(s, "tenant") && strings.Contains(s, "not found")
}

// Collections implements store.Remote.
func (r *Remote) Collections(ctx context.Context) ([]store.CollectionInfo, error) {
	c := ctx
	var out []store.CollectionInfo
	var list struct {
		Objects []struct {
			Properties collectionProps `json:"properties"`
		} `json:"objects"`
	}
	after := ""
	for {
		path := "/v1/objects?class=" + r.classCollection + "&limit=500"
		if after != "" {
			path += "&after=" + after
		}
		list.Objects = nil
		if err := r.c.do(c, "GET", path, nil, &list); err != nil {
			return nil, err
		}
		for _, o := range list.Objects {
			p := o.Properties
			// Read it back at the consistency level: the listing may come
			// from a replica that missed a deletion.
			p, err := r.collection(c, p.Name)
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			n, err := r.count(c, p.Tenant)
			if err != nil {
				return nil, err
			}
			created, _ := time.Parse(time.RFC3339Nano, p.Created)
			out = append(out, store.CollectionInfo{Name: p.Name, Docs: n, Created: created})
		}
		if len(list.Objects) < 500 {
			break
		}
		after = collectionID(list.Objects[len(list.Objects)-1].Properties.Name)
	}
	return out, nil
}

// count returns the number of documents in a tenant.
func (r *Remote) count(ctx context.Context, tenant string) (int, error) {
	var res struct {
		Data struct {
			Aggregate map[string][]struct {
				Meta struct {
					Count int `json:"count"`
				} `json:"meta"`
			} `json:"Aggregate"`
		} `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	q := fmt.Sprintf(`{Aggregate{%s(tenant:%q){meta{count}}}}`, r.classDoc, tenant)
	if err := r.c.do(ctx, "POST", "/v1/graphql", map[string]string{"query": q}, &res); err != nil {
		return 0, err
	}
	if len(res.Errors) > 0 {
		return 0, fmt.Errorf("count documents of tenant %s: %s", tenant, res.Errors[0].Message)
	}
	a := res.Data.Aggregate[r.classDoc]
	if len(a) == 0 {
		return 0, nil
	}
	return a[0].Meta.Count, nil
}

func newStamp() string { return strconv.FormatUint(rand.Uint64()|1, 10) }

// CreateCollection implements store.Remote.
func (r *Remote) CreateCollection(ctx context.Context, name string) error {
	c := ctx
	if _, err := r.collection(c, name); err == nil {
		return nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	tenant := tenantName(name)
	for _, class := range []string{r.classDoc, r.classFile} {
		if err := r.ensureTenant(c, class, tenant); err != nil {
			return err
		}
	}
	obj := object{Class: r.classCollection, ID: collectionID(name), Properties: map[string]any{
		"name": name, "tenant": tenant, "created": time.Now().UTC().Format(time.RFC3339Nano), "stamp": newStamp(),
	}}
	// Two processes creating the same collection at once: the last object
	// wins and the other's tenants stay empty; both then use the winner's.
	if err := r.batch(c, []object{obj}); err != nil {
		return err
	}
	r.forget(name)
	_, err := r.collection(c, name)
	return err
}

// tenantName is a collection's tenant: its name (Weaviate tenant names
// allow no dots) and a random suffix for this incarnation.
func tenantName(collection string) string {
	return strings.ReplaceAll(collection, ".", "_") + "--" + strconv.FormatUint(rand.Uint64()>>16, 36)
}

func (r *Remote) ensureTenant(ctx context.Context, class, tenant string) error {
	deadline := time.Now().Add(r.c.o.Retry)
	for {
		err := r.c.do(ctx, "GET", "/v1/schema/"+class+"/tenants/"+tenant, nil, nil)
		if err == nil {
			return nil
		}
		if !isStatus(err, 404) {
			return fmt.Errorf("read tenant %s of %s: %w", tenant, class, err)
		}
		err = r.c.doTimeout(ctx, 20*time.Second, "POST", "/v1/schema/"+class+"/tenants",
			[]map[string]string{{"name": tenant, "activityStatus": "HOT"}}, nil)
		if err == nil || isStatus(err, 422) {
			continue
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("create tenant %s of %s: %w", tenant, class, err)
		}
		time.Sleep(time.Second)
	}
}

// DeleteCollection implements store.Remote.
func (r *Remote) DeleteCollection(ctx context.Context, name string) error {
	c := ctx
	p, err := r.collection(c, name)
	if err != nil {
		return err
	}
	// The object first: from then on the collection does not exist, and a
	// new one of the same name gets new tenants.
	err = r.c.do(c, "DELETE", "/v1/objects/"+r.classCollection+"/"+collectionID(name)+"?"+r.q(), nil, nil)
	if err != nil && !isStatus(err, 404) {
		return err
	}
	r.forget(name)
	for _, class := range []string{r.classDoc, r.classFile} {
		err := r.c.doTimeout(c, 20*time.Second, "DELETE", "/v1/schema/"+class+"/tenants", []string{p.Tenant}, nil)
		if err != nil && !isStatus(err, 404) && !isStatus(err, 422) {
			slog.Warn("weaviate: could not remove a deleted collection's tenant; it holds only unreachable data", "collection", name, "class", class, "tenant", p.Tenant, "err", err)
		}
	}
	return nil
}

// Stamp implements store.Remote. A stamp read less than StampTTL ago is
// answered from memory (a server checks it on every request); this
// process's own writes forget it, so they are seen at once, and another
// process's within StampTTL.
func (r *Remote) Stamp(ctx context.Context, collection string) (uint64, error) {
	if ttl := r.c.o.StampTTL; ttl > 0 {
		r.mu.Lock()
		sa, ok := r.stamps[collection]
		r.mu.Unlock()
		if ok && time.Since(sa.at) < ttl {
			return sa.stamp, nil
		}
	}
	at := time.Now()
	p, err := r.collection(ctx, collection)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(p.Stamp, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("collection %q: damaged stamp %q", collection, p.Stamp)
	}
	r.mu.Lock()
	r.stamps[collection] = stampAt{n, at}
	r.mu.Unlock()
	return n, nil
}

// bump changes a collection's stamp.
func (r *Remote) bump(ctx context.Context, collection string) error {
	r.mu.Lock()
	delete(r.stamps, collection)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.stamps, collection)
		r.mu.Unlock()
	}()
	err := r.c.do(ctx, "PATCH", "/v1/objects/"+r.classCollection+"/"+collectionID(collection)+"?"+r.q(),
		map[string]any{"class": r.classCollection, "properties": map[string]any{"stamp": newStamp()}}, nil)
	if isStatus(err, 404) {
		return fmt.Errorf("collection %q: %w", collection, store.ErrNotFound)
	}
	return err
}

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
	c := ctx
	var data []byte
	err := r.withTenant(c, collection, func(t string) error {
		data = nil
		parts := 1
		for part := 0; part < parts; part++ {
			var obj struct {
				Properties struct {
					Parts int    `json:"parts"`
					Data  string `json:"data"`
				} `json:"properties"`
			}
			err := r.c.do(c, "GET", "/v1/objects/"+r.classFile+"/"+fileID(id, version, name, part)+"?tenant="+url.QueryEscape(t)+"&"+r.q(), nil, &obj)
			if isStatus(err, 404) {
				return fmt.Errorf("document %q version %s: %s part %d: %w", id, version, name, part, fs.ErrNotExist)
			}
			if err != nil {
				return err
			}
			b, err := base64.StdEncoding.DecodeString(obj.Properties.Data)
			if err != nil {
				return fmt.Errorf("document %q version %s: %s: %w", id, version, name, err)
			}
			parts = max(1, obj.Properties.Parts)
			data = append(data, b...)
		}
		return nil
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
		if time.Now().After(deadline) {
			return fmt.Errorf("batch write: %w", err)
		}
		r.c.retries.Add(1)
		time.Sleep(delay)
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

// fromEveryNode calls list for every host at once and returns the answers
// of the hosts that answered, in host order, and the first error of the
// others.
func fromEveryNode[T any](hosts []string, list func(host string) (T, error)) ([]T, error) {
	lists := make([]T, len(hosts))
	errs := make([]error, len(hosts))
	parallel.All(len(hosts), len(hosts), func(i int) {
		lists[i], errs[i] = list(hosts[i])
	})
	var got []T
	var firstErr error
	for i := range hosts {
		if errs[i] == nil {
			got = append(got, lists[i])
		} else if firstErr == nil {
			firstErr = errs[i]
		}
	}
	return got, firstErr
}

// agreement returns every id some list holds, and whether every list holds
// it with the same value.
func agreement[V any](lists []map[string]V, same func(a, b V) bool) map[string]bool {
	out := map[string]bool{}
	for _, l := range lists {
		for id := range l {
			out[id] = true
		}
	}
	for id := range out {
		first, agree := lists[0][id]
		for _, l := range lists[1:] {
			v, ok := l[id]
			agree = agree && ok && same(v, first)
		}
		out[id] = agree
	}
	return out
}
