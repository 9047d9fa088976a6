package server

import (
	"net"
	"sync"
)

// Connection limits: without them one client holding idle connections ran
// the server out of file descriptors at ~22,000.
const (
	// DefaultMaxConnsPerClient bounds the open connections from one
	// remote address. Behind a reverse proxy every client shares the
	// proxy's address: raise it there (or let the proxy limit).
	DefaultMaxConnsPerClient = 64
	// DefaultMaxConns bounds the server's open connections in all.
	DefaultMaxConns = 4096
)

// connLimitListener closes, as soon as they are accepted, connections past
// the per-client or the total limit, so a client that floods connections
// gets closed sockets while everyone else is still served. A negative
// limit disables that bound.
type connLimitListener struct {
	net.Listener
	perClient, total int

	mu    sync.Mutex
	open  int
	byKey map[string]int
	onCut func(addr string) // called for each refused connection (logging)
}

func newConnLimitListener(ln net.Listener, perClient, total int, onCut func(string)) net.Listener {
	return &connLimitListener{Listener: ln, perClient: perClient, total: total, byKey: map[string]int{}, onCut: onCut}
}

// Accept returns the next connection within the limits.
func (l *connLimitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := clientKey(c.RemoteAddr())
		if l.admit(key) {
			return &limitedConn{Conn: c, release: func() { l.release(key) }}, nil
		}
		_ = c.Close()
		if l.onCut != nil {
			l.onCut(key)
		}
	}
}

func (l *connLimitListener) admit(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if (l.total >= 0 && l.open >= l.total) || (l.perClient >= 0 && l.byKey[key] >= l.perClient) {
		return false
	}
	l.open++
	l.byKey[key]++
	return true
}

func (l *connLimitListener) release(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if l.byKey[key]--; l.byKey[key] <= 0 {
		delete(l.byKey, key)
	}
}

// clientKey is the remote host of a connection (without the port).
func clientKey(a net.Addr) string {
	if a == nil {
		return ""
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

// limitedConn gives its slot back once, when closed.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
