package server

import (
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/pakton/pakton/internal/auth"
)

// Costs of the expensive routes in requests of the rate limit: an ask keeps
// the agents and a model busy, an upload parses and indexes files.
const (
	askCost    = 5
	uploadCost = 10
	reviewCost = 10
)

// Bounds on the limiter's memory: idle buckets are swept every sweepEvery,
// and at most maxBuckets are kept (the least recently used go first).
const (
	sweepEvery = time.Minute
	maxBuckets = 10000
)

// limiter is a token bucket per caller: a bucket holds up to burst tokens,
// gains rate tokens a second, and a request spends its cost in tokens or is
// refused. A bucket idle long enough to be full again is the same as no
// bucket, so it is dropped; memory then holds only the callers active in
// the last burst/rate seconds (and at most maxBuckets).
type limiter struct {
	rate, burst float64

	mu        sync.Mutex
	now       func() time.Time // time.Now; tests set it with setClock
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	tokens float64
	last   time.Time // when tokens was computed
}

func newLimiter(rate, burst float64) *limiter {
	return &limiter{rate: rate, burst: burst, now: time.Now, buckets: map[string]*bucket{}}
}

// setClock replaces the limiter's clock (tests).
func (l *limiter) setClock(now func() time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.now = now
	l.lastSweep = now()
}

// allow spends cost tokens of who's bucket. When the bucket holds too few,
// it spends nothing and returns how long until it will hold enough. A cost
// above the burst is charged as the burst, so every request can pass once
// the bucket is full.
func (l *limiter) allow(who string, cost float64) (ok bool, retry time.Duration) {
	cost = min(cost, l.burst)
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.sweepLocked(now)
	b := l.buckets[who]
	if b == nil {
		if len(l.buckets) >= maxBuckets {
			l.evictLocked()
		}
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[who] = b
	}
	l.refill(b, now)
	if b.tokens >= cost {
		b.tokens -= cost
		return true, 0
	}
	return false, time.Duration((cost - b.tokens) / l.rate * float64(time.Second))
}

func (l *limiter) refill(b *bucket, now time.Time) {
	if dt := now.Sub(b.last); dt > 0 {
		b.tokens = min(l.burst, b.tokens+dt.Seconds()*l.rate)
		b.last = now
	}
}

// sweepLocked drops the buckets that have refilled completely, at most once
// every sweepEvery.
func (l *limiter) sweepLocked(now time.Time) {
	if now.Sub(l.lastSweep) < sweepEvery {
		return
	}
	l.lastSweep = now
	for who, b := range l.buckets {
		l.refill(b, now)
		if b.tokens >= l.burst {
			delete(l.buckets, who)
		}
	}
}

// evictLocked drops the least recently used quarter of the buckets when
// there are too many callers at once: those callers get a full bucket
// again, which errs on the side of serving them.
func (l *limiter) evictLocked() {
	type use struct {
		who  string
		last time.Time
	}
	all := make([]use, 0, len(l.buckets))
	for who, b := range l.buckets {
		all = append(all, use{who, b.last})
	}
	slices.SortFunc(all, func(a, b use) int { return a.last.Compare(b.last) })
	for _, u := range all[:len(all)/4+1] {
		delete(l.buckets, u.who)
	}
}

// size is the number of buckets held (tests).
func (l *limiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// limited reports whether the request must be refused by the rate limit,
// and then answers it with 429, a Retry-After header in whole seconds and a
// JSON error. who names the caller's bucket.
func (s *Server) limited(w http.ResponseWriter, who string, cost float64) bool {
	if s.limiter == nil {
		return false
	}
	ok, retry := s.limiter.allow(who, cost)
	if ok {
		return false
	}
	secs := max(1, int(math.Ceil(retry.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	fail(w, http.StatusTooManyRequests, "rate limit exceeded (%g requests/s, burst %g per key); retry in %d s",
		s.limiter.rate, s.limiter.burst, secs)
	return true
}

// caller names the rate-limit bucket of a request: its key, or in no-auth
// mode (where every request carries the same key) and for requests without
// a valid key, its remote address.
func (s *Server) caller(r *http.Request, k auth.Key, authed bool) string {
	if authed && !s.cfg.NoAuth {
		return "key:" + k.ID
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "ip:" + host
}
