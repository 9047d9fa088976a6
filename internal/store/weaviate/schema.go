package weaviate

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

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
		if err := sleepCtx(ctx, time.Second); err != nil {
			return err
		}
	}
}
