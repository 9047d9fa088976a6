// Package wvtest starts a real N-node Weaviate cluster on 127.0.0.1 for
// tests and benchmarks (no Docker): the recipe of
// ../shared/tools/weaviate-cluster.sh in Go. Requirements learned with
// Weaviate 1.35.2: CLUSTER_IN_LOCALHOST=true; RAFT_JOIN entries are
// name:RAFT_PORT; RAFT_INTERNAL_RPC_PORT is RAFT_PORT+1; a node exits when
// nothing listens at its CLUSTER_JOIN address, so the first node starts
// alone.
package wvtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/filelock"
)

// Version is the Weaviate server version pakton is tested with.
const Version = "v1.35.2"

// InstallCommand installs the server binary.
const InstallCommand = "go install github.com/weaviate/weaviate/cmd/weaviate-server@" + Version

// Binary finds weaviate-server: $WEAVIATE_SERVER, $PATH, then $(go env
// GOPATH)/bin.
func Binary() (string, error) {
	if p := os.Getenv("WEAVIATE_SERVER"); p != "" {
		return p, nil
	}
	if p, err := exec.LookPath("weaviate-server"); err == nil {
		return p, nil
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
			gopath = strings.TrimSpace(string(out))
		}
	}
	for _, dir := range filepath.SplitList(gopath) {
		p := filepath.Join(dir, "bin", "weaviate-server")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("weaviate-server not found (looked at $WEAVIATE_SERVER, $PATH and $(go env GOPATH)/bin); install it with:\n\t%s\n(about 4 minutes of CPU)", InstallCommand)
}

// Cluster is a running cluster.
type Cluster struct {
	Bin    string
	Dir    string
	N      int
	Offset int // added to every base port
	Procs  []*exec.Cmd
	done   []chan struct{} // closed when node i's process has exited
	lock   *os.File        // flock on this port range, held while the cluster runs
	logf   func(string, ...any)
}

// Ports of node i (1-based). Every port stays below the kernel's ephemeral
// range (32768 and up on Linux), so an outgoing connection made while the
// cluster starts cannot take a port a node is about to bind; Weaviate's
// default gRPC port 50051 is inside that range, hence the lower base.
func (c *Cluster) HTTPPort(i int) int   { return 8080 + i - 1 + c.Offset }
func (c *Cluster) GRPCPort(i int) int   { return 12051 + i - 1 + c.Offset }
func (c *Cluster) GossipPort(i int) int { return 7100 + 2*(i-1) + c.Offset }
func (c *Cluster) DataPort(i int) int   { return 7101 + 2*(i-1) + c.Offset }
func (c *Cluster) RaftPort(i int) int   { return 8300 + 2*(i-1) + c.Offset }

// Addr is node i's HTTP address.
func (c *Cluster) Addr(i int) string { return "127.0.0.1:" + strconv.Itoa(c.HTTPPort(i)) }

// URL is a weaviate:// store URL naming every node.
func (c *Cluster) URL(params string) string {
	var hs []string
	for i := 1; i <= c.N; i++ {
		hs = append(hs, c.Addr(i))
	}
	u := "weaviate://" + strings.Join(hs, ",")
	if params != "" {
		u += "?" + params
	}
	return u
}

func free(port int) bool {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// Start starts an n-node cluster in dir and waits until every node is ready
// and healthy. It picks a port offset (a multiple of 100 from 1000) whose
// ports are all free, so it does not collide with a cluster someone else
// runs on the default ports.
func Start(dir string, n int, logf func(string, ...any)) (*Cluster, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	c := &Cluster{Bin: bin, Dir: dir, N: n, Procs: make([]*exec.Cmd, n+1), done: make([]chan struct{}, n+1), logf: logf}
	if c.logf == nil {
		c.logf = func(string, ...any) {}
	}
	for off := 1000; ; off += 100 {
		if off > 9000 {
			return nil, errors.New("wvtest: no free port range")
		}
		c.Offset = off
		// Claim the range across processes (test binaries of several
		// packages run at once): an flock held while the cluster runs.
		lf, err := filelock.Open(filepath.Join(os.TempDir(), fmt.Sprintf("pakton-wvtest-%d.lock", off)))
		if err != nil {
			return nil, err
		}
		if filelock.TryLock(lf) != nil {
			lf.Close()
			continue
		}
		ok := true
		for i := 1; i <= n && ok; i++ {
			for _, p := range []int{c.HTTPPort(i), c.GRPCPort(i), c.GossipPort(i), c.DataPort(i), c.RaftPort(i), c.RaftPort(i) + 1} {
				if !free(p) {
					ok = false
					break
				}
			}
		}
		if ok {
			c.lock = lf
			break
		}
		lf.Close()
	}
	if err := c.StartNode(1, ""); err != nil {
		c.Stop()
		return nil, err
	}
	if err := c.waitPort(1, c.GossipPort(1)); err != nil {
		c.Stop()
		return nil, err
	}
	for i := 2; i <= n; i++ {
		if err := c.StartNode(i, "127.0.0.1:"+strconv.Itoa(c.GossipPort(1))); err != nil {
			c.Stop()
			return nil, err
		}
	}
	for i := 1; i <= n; i++ {
		if err := c.WaitReady(i, 2*time.Minute); err != nil {
			c.Stop()
			return nil, err
		}
	}
	if err := c.WaitHealthy(n, 1, 2*time.Minute); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// StartNode starts node i joining the gossip addresses in join ("" for the
// first node of a new cluster).
func (c *Cluster) StartNode(i int, join string) error {
	data := filepath.Join(c.Dir, "node"+strconv.Itoa(i))
	if err := os.MkdirAll(data, 0o755); err != nil {
		return err
	}
	var rj []string
	for j := 1; j <= c.N; j++ {
		rj = append(rj, "node"+strconv.Itoa(j)+":"+strconv.Itoa(c.RaftPort(j)))
	}
	logf, err := os.OpenFile(filepath.Join(c.Dir, "node"+strconv.Itoa(i)+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(c.Bin, "--host", "127.0.0.1", "--port", strconv.Itoa(c.HTTPPort(i)), "--scheme", "http",
		"--read-timeout=600s", "--write-timeout=600s")
	cmd.Env = []string{
		"PATH=/usr/bin:/bin", "HOME=" + os.Getenv("HOME"),
		"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true",
		"PERSISTENCE_DATA_PATH=" + data,
		"DEFAULT_VECTORIZER_MODULE=none",
		"DISABLE_TELEMETRY=true",
		"GO_PROFILING_DISABLE=true",
		"LOG_LEVEL=warning",
		"GRPC_PORT=" + strconv.Itoa(c.GRPCPort(i)),
		"CLUSTER_HOSTNAME=node" + strconv.Itoa(i),
		"CLUSTER_IN_LOCALHOST=true",
		"CLUSTER_ADVERTISE_ADDR=127.0.0.1",
		"CLUSTER_BIND_ADDR=127.0.0.1",
		"CLUSTER_GOSSIP_BIND_PORT=" + strconv.Itoa(c.GossipPort(i)),
		"CLUSTER_DATA_BIND_PORT=" + strconv.Itoa(c.DataPort(i)),
		"CLUSTER_JOIN=" + join,
		"RAFT_PORT=" + strconv.Itoa(c.RaftPort(i)),
		"RAFT_INTERNAL_RPC_PORT=" + strconv.Itoa(c.RaftPort(i)+1),
		"RAFT_JOIN=" + strings.Join(rj, ","),
		"RAFT_BOOTSTRAP_EXPECT=" + strconv.Itoa(c.N),
		"RAFT_TIMEOUTS_MULTIPLIER=1",
		"GOMAXPROCS=2",
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start node%d: %w", i, err)
	}
	logf.Close()
	c.Procs[i] = cmd
	done := make(chan struct{})
	c.done[i] = done
	go func() { cmd.Wait(); close(done) }()
	c.logf("wvtest: node%d pid %d http %s", i, cmd.Process.Pid, c.Addr(i))
	return nil
}

// Restart starts node i again, joining the others.
func (c *Cluster) Restart(i int) error {
	var join []string
	for j := 1; j <= c.N; j++ {
		if j != i {
			join = append(join, "127.0.0.1:"+strconv.Itoa(c.GossipPort(j)))
		}
	}
	if err := c.StartNode(i, strings.Join(join, ",")); err != nil {
		return err
	}
	return c.WaitReady(i, 2*time.Minute)
}

// Kill sends SIGKILL to node i and waits until it has exited (so its
// ports are free).
func (c *Cluster) Kill(i int) {
	if p := c.Procs[i]; p != nil && p.Process != nil {
		p.Process.Kill()
		c.logf("wvtest: SIGKILL node%d (pid %d)", i, p.Process.Pid)
		select {
		case <-c.done[i]:
		case <-time.After(10 * time.Second):
		}
	}
	c.Procs[i] = nil
}

// Stop kills every node and releases the port range.
func (c *Cluster) Stop() {
	for i := 1; i < len(c.Procs); i++ {
		c.Kill(i)
	}
	if c.lock != nil {
		c.lock.Close()
		c.lock = nil
	}
}

func (c *Cluster) alive(i int) bool {
	p := c.Procs[i]
	return p != nil && p.Process != nil && p.Process.Signal(syscall.Signal(0)) == nil
}

func (c *Cluster) tail(i int) string {
	b, _ := os.ReadFile(filepath.Join(c.Dir, "node"+strconv.Itoa(i)+".log"))
	if len(b) > 1500 {
		b = b[len(b)-1500:]
	}
	return string(b)
}

func (c *Cluster) waitPort(i, port int) error {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if cn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second); err == nil {
			cn.Close()
			return nil
		}
		if !c.alive(i) {
			return fmt.Errorf("node%d exited; log tail:\n%s", i, c.tail(i))
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("node%d: port %d not listening after 1m", i, port)
}

// WaitReady waits for node i's readiness probe.
func (c *Cluster) WaitReady(i int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	cl := http.Client{Timeout: 2 * time.Second}
	for time.Now().Before(deadline) {
		res, err := cl.Get("http://" + c.Addr(i) + "/v1/.well-known/ready")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return nil
			}
		}
		if !c.alive(i) {
			return fmt.Errorf("node%d exited; log tail:\n%s", i, c.tail(i))
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("node%d not ready after %s; log tail:\n%s", i, timeout, c.tail(i))
}

// WaitHealthy waits until node via sees want nodes HEALTHY.
func (c *Cluster) WaitHealthy(want, via int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	cl := http.Client{Timeout: 5 * time.Second}
	h := 0
	for time.Now().Before(deadline) {
		res, err := cl.Get("http://" + c.Addr(via) + "/v1/nodes")
		if err == nil {
			var buf bytes.Buffer
			buf.ReadFrom(res.Body)
			res.Body.Close()
			h = strings.Count(buf.String(), `"status":"HEALTHY"`)
			if h >= want {
				return nil
			}
		}
		time.Sleep(300 * time.Millisecond)
	}
	return fmt.Errorf("only %d/%d nodes healthy after %s", h, want, timeout)
}

// Leader returns the index of the Raft leader as node via sees it (0 when
// unknown).
func (c *Cluster) Leader(via int) int {
	cl := http.Client{Timeout: 5 * time.Second}
	res, err := cl.Get("http://" + c.Addr(via) + "/v1/cluster/statistics")
	if err != nil {
		return 0
	}
	defer res.Body.Close()
	var st struct {
		Statistics []struct {
			Name string `json:"name"`
			Raft struct {
				State string `json:"state"`
			} `json:"raft"`
		} `json:"statistics"`
	}
	if json.NewDecoder(res.Body).Decode(&st) != nil {
		return 0
	}
	for _, s := range st.Statistics {
		if strings.EqualFold(s.Raft.State, "Leader") {
			n, _ := strconv.Atoi(strings.TrimPrefix(s.Name, "node"))
			return n
		}
	}
	return 0
}

// Require starts a cluster for a test, or fails it with the install command
// when the server binary is missing; the cluster is stopped at the end.
func Require(t testing.TB, n int) *Cluster {
	t.Helper()
	c, err := Start(t.TempDir(), n, t.Logf)
	if err != nil {
		t.Fatalf("weaviate cluster: %v", err)
	}
	t.Cleanup(c.Stop)
	return c
}
