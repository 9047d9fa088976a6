package weaviate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/pakton/pakton/internal/store"
)

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
		if err := sleepCtx(ctx, time.Second); err != nil {
			return err
		}
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
