// Package weaviate keeps a pakton store in a Weaviate cluster: it implements
// store.Remote over Weaviate's REST API, so every command runs on the
// cluster with `--store weaviate://host:port[,host:port…][?replicas=3]`.
//
// # Data model
//
// Three Weaviate collections ("classes"), created only when absent:
//
//	PaktonCollection  one object per pakton collection: name, tenant, created, stamp
//	PaktonDoc         multi-tenant; one object per live document: docId, version, entry, files
//	PaktonFile        multi-tenant; one object per file part of a document version:
//	                  docId, version, name, part, parts, data (blob)
//
// A pakton collection is a pair of Weaviate tenants (of PaktonDoc and
// PaktonFile) named after it plus a random suffix chosen when it is created,
// so collections are isolated by construction, and deleting then re-creating
// a collection never shows the old documents even if the tenants' removal
// was cut short. Object ids are derived from names (document id; document
// id, version, file name and part), so every write is an idempotent upsert:
// a retried batch can never store a document twice.
//
// A document is committed by writing its version's files first, then its
// PaktonDoc object — the commit point — then removing the replaced version's
// files. The collection's stamp (pakton's generation) is changed before and
// after every write, so a search index cached under an older stamp is never
// reused once a write has started. Reads and writes use consistency level
// QUORUM, so with replication 3 a write seen as done is read back by any
// later read even when one node is down.
//
// # Faults
//
// Every request has a timeout and is retried, on the next host of the URL,
// after a connection error, a timeout, a 5xx or a 429, until a total budget
// (2 minutes by default) is spent; all writes are idempotent. Schema changes
// (classes, tenants) are checked for existence before each attempt, because
// one sent while the cluster elects a Raft leader can hang without reply.
package weaviate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Scheme is the URL scheme that names a Weaviate store.
const Scheme = "weaviate://"

// EnvAPIKey names the environment variable holding a Weaviate API key
// (sent as a bearer token; never printed).
const EnvAPIKey = "PAKTON_WEAVIATE_API_KEY"

// trace, set by PAKTON_WEAVIATE_TRACE=1, prints every request to stderr.
var trace = os.Getenv("PAKTON_WEAVIATE_TRACE") == "1"

// IsURL reports whether a --store value names a Weaviate cluster.
func IsURL(s string) bool { return strings.HasPrefix(s, Scheme) }

// Options configure a client. ParseURL fills them from a store URL.
type Options struct {
	Hosts []string // host:port of the nodes' HTTP APIs; requests go to the next one on failure
	// Replicas is the replication factor of the classes pakton creates
	// (default 1). An existing class keeps its own.
	Replicas int
	// Shards is accepted for the PaktonCollection class; documents live in
	// multi-tenant classes, where each tenant (collection) is one shard
	// placed on Replicas nodes.
	Shards int
	// Timeout bounds each request (default 30 s); Retry bounds the retries
	// of one operation (default 2 min).
	Timeout, Retry time.Duration
	// StampTTL is how long a collection's generation, once read, is
	// trusted without asking the cluster again (default 1 s; 0 asks every
	// time): a server checks it on every request. This process's own
	// writes are seen at once; another process's within StampTTL.
	StampTTL time.Duration
	// Consistency is the consistency level of reads and writes (default
	// QUORUM).
	Consistency string
	// Namespace, when set, names a separate set of classes
	// ("Pakton<Namespace>Doc", …), so several pakton deployments (or test
	// runs) can share one cluster without seeing each other.
	Namespace string
	// Local is the local directory for derived files and process state
	// (default: the user's cache directory, per cluster).
	Local string
	// APIKey is sent as a bearer token (PAKTON_WEAVIATE_API_KEY); TLS
	// talks HTTPS to the nodes (tls=true), without which the key travels
	// in clear.
	APIKey string
	TLS    bool
}

// Redact returns a store URL (or any text holding one) with the
// credentials of its hosts (user:password@ or token@) replaced by "***", for
// messages and logs.
func Redact(s string) string {
	for from := 0; ; {
		i := strings.Index(s[from:], Scheme)
		if i < 0 {
			return s
		}
		i += from + len(Scheme)
		end := i + strings.IndexAny(s[i:]+" ", "?/ \t\n\"'")
		hosts := strings.Split(s[i:end], ",")
		for k, h := range hosts {
			if at := strings.LastIndex(h, "@"); at >= 0 {
				hosts[k] = "***@" + h[at+1:]
			}
		}
		joined := strings.Join(hosts, ",")
		s = s[:i] + joined + s[end:]
		from = i + len(joined)
	}
}

// ParseURL parses weaviate://host:port[,host:port…][?replicas=N&shards=N&timeout=30s&retry=2m&stamp_ttl=1s&consistency=QUORUM&namespace=NS&local=DIR&tls=true].
// Credentials are not taken from the URL (a command line and a log show it):
// the API key comes from PAKTON_WEAVIATE_API_KEY, and a URL with
// user:password@ or token@ is refused, without echoing them.
func ParseURL(raw string) (Options, error) {
	var o Options
	if !IsURL(raw) {
		return o, fmt.Errorf("weaviate: %q is not a weaviate:// URL", Redact(raw))
	}
	rest := strings.TrimPrefix(raw, Scheme)
	hostPart, query, _ := strings.Cut(rest, "?")
	hostPart = strings.TrimSuffix(hostPart, "/")
	if strings.Contains(hostPart, "@") {
		return o, fmt.Errorf("weaviate: %s holds credentials; pakton does not read them from the URL, which command lines and logs show: put the API key in %s", Redact(raw), EnvAPIKey)
	}
	for _, h := range strings.Split(hostPart, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(h, "8080")
		}
		o.Hosts = append(o.Hosts, h)
	}
	if len(o.Hosts) == 0 {
		return o, fmt.Errorf("weaviate: %q names no host (want weaviate://host:port[,host:port…])", Redact(raw))
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return o, fmt.Errorf("weaviate: %q: bad parameters", Redact(raw))
	}
	o.Replicas, o.Shards, o.Consistency = 1, 1, "QUORUM"
	o.Timeout, o.Retry, o.StampTTL = 30*time.Second, 2*time.Minute, time.Second
	for k, vs := range q {
		v := vs[len(vs)-1]
		switch k {
		case "replicas", "shards":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 64 {
				return o, fmt.Errorf("weaviate: %s=%q: want a number from 1 to 64", k, v)
			}
			if k == "replicas" {
				o.Replicas = n
			} else {
				o.Shards = n
			}
		case "timeout", "retry", "stamp_ttl":
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 || d == 0 && k != "stamp_ttl" {
				return o, fmt.Errorf("weaviate: %s=%q: want a duration such as 30s", k, v)
			}
			switch k {
			case "timeout":
				o.Timeout = d
			case "retry":
				o.Retry = d
			default:
				o.StampTTL = d
			}
		case "consistency":
			v = strings.ToUpper(v)
			if v != "ONE" && v != "QUORUM" && v != "ALL" {
				return o, fmt.Errorf("weaviate: consistency=%q: want ONE, QUORUM or ALL", v)
			}
			o.Consistency = v
		case "local":
			o.Local = v
		case "tls":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return o, fmt.Errorf("weaviate: tls=%q: want true or false", v)
			}
			o.TLS = b
		case "namespace":
			if !validNamespace(v) {
				return o, fmt.Errorf("weaviate: namespace=%q: want 1-32 letters and digits, starting with a capital letter", v)
			}
			o.Namespace = v
		default:
			return o, fmt.Errorf("weaviate: unknown URL parameter %q (known: replicas, shards, timeout, retry, stamp_ttl, consistency, namespace, local, tls)", k)
		}
	}
	if o.Local == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			base = os.TempDir()
		}
		o.Local = localDir(base, o.Hosts, o.Namespace)
	}
	o.APIKey = os.Getenv(EnvAPIKey)
	return o, nil
}

func validNamespace(s string) bool {
	if len(s) == 0 || len(s) > 32 || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// localDir names a cluster's local directory by a hash of its hosts and
// namespace, never by the URL's text. A directory an older pakton named
// from the hosts themselves is renamed to it, keeping the server's
// instance id (and so its jobs) and derived files.
func localDir(base string, hosts []string, namespace string) string {
	h := sha256.Sum256([]byte(strings.Join(hosts, ",") + "\x00" + namespace))
	dir := filepath.Join(base, "pakton", "weaviate-"+hex.EncodeToString(h[:8]))
	old := filepath.Join(base, "pakton", "weaviate-"+safeName(strings.Join(hosts, ","))+namespace)
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		if fi, err := os.Stat(old); err == nil && fi.IsDir() {
			os.Rename(old, dir)
		}
	}
	return dir
}

func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// client sends REST requests to the cluster with timeouts, retries and
// fail-over between hosts.
type client struct {
	o    Options
	http *http.Client
	next atomic.Uint32 // host to try first

	// Requests and retries, for tests and progress.
	requests, retries atomic.Int64
}

// classRecord is the name of the class that holds records.
func (c *client) classRecord() string { return "Pakton" + c.o.Namespace + suffixRecord }

// statusError is a response the server gave and that retrying will not
// change (a 4xx other than 429).
type statusError struct {
	Method, Path string
	Code         int
	Body         string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("%s %s: HTTP %d: %s", e.Method, e.Path, e.Code, e.Body)
}

func isStatus(err error, code int) bool {
	var se *statusError
	return errors.As(err, &se) && se.Code == code
}

// unreachableError says no node answered within the retry budget.
type unreachableError struct {
	Hosts []string
	Last  error
	Tries int
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("weaviate cluster at %s did not answer after %d attempts (is it running? check --store / PAKTON_STORE): %v",
		strings.Join(e.Hosts, ","), e.Tries, e.Last)
}

func (e *unreachableError) Unwrap() error { return e.Last }

func newClient(o Options) *client {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 3 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     60 * time.Second,
	}
	return &client{o: o, http: &http.Client{Transport: tr}}
}

// do sends one request and decodes a JSON response into out (when non-nil).
// It retries transient failures on the next host until the retry budget is
// spent; every request pakton sends is idempotent. timeout overrides the
// per-request timeout when positive.
func (c *client) do(ctx context.Context, method, path string, body, out any) error {
	return c.doTimeout(ctx, 0, method, path, body, out)
}

func (c *client) doTimeout(ctx context.Context, timeout time.Duration, method, path string, body, out any) error {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return err
		}
	}
	if timeout <= 0 {
		timeout = c.o.Timeout
	}
	deadline := time.Now().Add(c.o.Retry)
	delay := 100 * time.Millisecond
	var last error
	tries := 0
	for {
		host := c.o.Hosts[int(c.next.Load())%len(c.o.Hosts)]
		tries++
		c.requests.Add(1)
		status, resp, err := c.once(ctx, timeout, host, method, path, payload)
		if err == nil && status < 300 {
			if out != nil && len(resp) > 0 {
				if err := json.Unmarshal(resp, out); err != nil {
					return fmt.Errorf("%s %s: decode response: %w", method, path, err)
				}
			}
			return nil
		}
		if err == nil {
			msg := strings.TrimSpace(string(resp))
			if len(msg) > 400 {
				msg = msg[:400] + "…"
			}
			se := &statusError{method, path, status, msg}
			if status != http.StatusTooManyRequests && status < 500 {
				return se
			}
			err = se
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if _, ok := err.(*tooLargeError); ok {
			return fmt.Errorf("%s: %w", host, err) // asking again would read as much again
		}
		last = fmt.Errorf("%s: %w", host, err)
		if time.Now().Add(delay).After(deadline) {
			return &unreachableError{Hosts: c.o.Hosts, Last: last, Tries: tries}
		}
		// Next host, after a short backoff with jitter.
		c.next.CompareAndSwap(c.next.Load(), c.next.Load()+1)
		c.retries.Add(1)
		if err := sleepCtx(ctx, delay/2+rand.N(delay/2+1)); err != nil {
			return err
		}
		delay = min(2*delay, 2*time.Second)
	}
}

func (c *client) once(ctx context.Context, timeout time.Duration, host, method, path string, payload []byte) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	scheme := "http://"
	if c.o.TLS {
		scheme = "https://"
	}
	req, err := http.NewRequestWithContext(ctx, method, scheme+host+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.o.APIKey)
	}
	if trace {
		fmt.Fprintf(os.Stderr, "weaviate: %s %s %s\n", host, method, path)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	limit := responseLimit(method, path, c.classRecord(), len(payload))
	if res.ContentLength > limit {
		return 0, nil, &tooLargeError{method, path, limit}
	}
	b, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		return 0, nil, err
	}
	if int64(len(b)) > limit {
		return 0, nil, &tooLargeError{method, path, limit}
	}
	return res.StatusCode, b, nil
}

// Bounds on an answer of the cluster, by what the call can legitimately
// return: a record (the largest thing pakton stores in one object: a
// finished review's table) or a listing of records as JSON text inside
// JSON; a batch's results echo what was sent; anything else — schema,
// tenants, a document's properties, a file part of partSize, a page of a
// listing — is small. An
// answer past its bound is an error, read no further (it used to be read up
// to 1 GiB, and one bad answer cost 2.65 GB).
const (
	// MaxRecordBytes is the largest record PutRecord writes.
	MaxRecordBytes = 256 << 20
	// maxRecordAnswer bounds an answer holding records: the data escaped
	// inside a JSON string, with the object around it.
	maxRecordAnswer = 2*MaxRecordBytes + 1<<20
	// maxAnswer bounds every other answer.
	maxAnswer = 16 << 20
)

// responseLimit returns the bound of the answer to a request with a body
// of sent bytes. A batch's answer echoes the objects sent.
func responseLimit(method, path, classRecord string, sent int) int64 {
	switch {
	case method == "GET" && classRecord != "" && strings.HasPrefix(path, "/v1/objects/"+classRecord+"/"), path == "/v1/graphql":
		return maxRecordAnswer
	case strings.HasPrefix(path, "/v1/batch/"):
		return max(maxAnswer, 2*int64(sent)+1<<20)
	}
	return maxAnswer
}

// tooLargeError is an answer past its bound.
type tooLargeError struct {
	method, path string
	limit        int64
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("%s %s: the answer is larger than the %d bytes it can legitimately be; not read", e.method, e.path, e.limit)
}

// objectID derives a stable object UUID from its key, so that writing the
// same thing twice upserts one object.
func objectID(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	h[6] = h[6]&0x0f | 0x50 // version 5 layout (name-based)
	h[8] = h[8]&0x3f | 0x80
	x := hex.EncodeToString(h[:16])
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

// sleepCtx waits d, or less when ctx is done first (its error then).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
