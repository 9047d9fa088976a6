package weaviate

import (
	"context"
	"fmt"
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
