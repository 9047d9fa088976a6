package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/atomicfile"
	"github.com/pakton/pakton/internal/parse/bombtest"
	"github.com/pakton/pakton/internal/procstat"
	"github.com/pakton/pakton/internal/store"
)

// The bounds every case of the bomb kit must keep to (ingested or refused
// with a clear error).
const (
	bombMaxRSS  = 1 << 30
	bombMaxTime = 60 * time.Second
)

// childRun is what a watched child process did.
type childRun struct {
	peak     int64         // peak resident memory (bytes)
	group    int64         // peak resident memory of it and the tools it started together (sampled)
	wall     time.Duration // wall time
	exit     int           // exit code; -1 when killed
	killed   string        // why the watchdog killed it, "" if it did not
	out, err string        // its stdout and stderr
}

// runWatched runs "pakton ARGS…" (this test binary standing in for the
// command) and kills it when its resident memory passes ceiling or it
// runs past limit: a hostile case that is not bounded must not take the
// machine with it.
func runWatched(t *testing.T, ceiling int64, limit time.Duration, env []string, args ...string) childRun {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), envRunMain+"=1"), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	ownGroup(cmd)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var (
		killed string
		peak   atomic.Int64
		group  atomic.Int64
	)
	go func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for n := 0; ; n++ {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			rss := procstat.BytesOf(cmd.Process.Pid, "VmRSS")
			if n%5 == 0 { // the tools it runs (tesseract, pdftotext) count too
				rss = treeRSS(cmd.Process.Pid)
				if rss > group.Load() {
					group.Store(rss)
				}
			}
			// The child's own high-water mark: its rusage would also count
			// the memory of this process, which it shared until it ran exec.
			if hwm := procstat.BytesOf(cmd.Process.Pid, "VmHWM"); hwm > peak.Load() {
				peak.Store(hwm)
			}
			switch {
			case rss > ceiling:
				killed = fmt.Sprintf("memory past %d MiB", ceiling>>20)
			case time.Since(start) > limit:
				killed = fmt.Sprintf("still running after %s", limit)
			default:
				continue
			}
			killGroup(cmd)
			return
		}
	}()
	werr := cmd.Wait()
	close(done)
	r := childRun{wall: time.Since(start), killed: killed, out: out.String(), err: errOut.String(), peak: peak.Load(), group: max(group.Load(), peak.Load())}
	r.exit = cmd.ProcessState.ExitCode()
	if werr != nil && r.exit == 0 {
		r.exit = -1
	}
	return r
}

// treeRSS returns the resident memory of process pid and of its
// descendants together.
func treeRSS(pid int) int64 {
	n := procstat.BytesOf(pid, "VmRSS")
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, task := range tasks {
		kids, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, task.Name()))
		for _, f := range strings.Fields(string(kids)) {
			var kid int
			if _, err := fmt.Sscan(f, &kid); err == nil {
				n += treeRSS(kid)
			}
		}
	}
	return n
}

// ownGroup makes a child the leader of its own process group, so that
// killGroup takes the tools it started (pdftotext, tesseract, LibreOffice)
// with it, and has the kernel kill it when this test process dies (a
// "go test -timeout" panic must not leave a server running). Wait gives up
// on the child's output ten seconds after it exits, should a grandchild
// still hold it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = 10 * time.Second
}

// killGroup kills a child started with ownGroup and everything it started.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Process.Kill()
}

// kitCases returns the cases of the bomb kit a test runs: those the
// regular expression PAKTON_BOMB selects; else, with PAKTON_BOMBS=1, those
// full selects (every case when full is ""); else those quick selects, a
// representative subset that keeps the slow suite short.
func kitCases(quick, full string) []bombtest.Case {
	sel := quick
	switch {
	case os.Getenv("PAKTON_BOMB") != "":
		sel = os.Getenv("PAKTON_BOMB")
	case os.Getenv("PAKTON_BOMBS") == "1":
		sel = full
	}
	re := regexp.MustCompile(sel)
	var out []bombtest.Case
	for _, c := range bombtest.Cases() {
		if re.MatchString(c.Name) {
			out = append(out, c)
		}
	}
	return out
}

// quickKit is the part of the kit the slow suite ingests without
// PAKTON_BOMBS=1: the case of each format that costs most.
const quickKit = `^(odt-paragraph-60mb|rtf-hex-body|doc-runs|msg-shared-stream|tiff-shared-strips|txt-definitions-20mb|eml-many-attachments|docx-paragraph-60mb|html-wide-table|pdf-text-ops)$`

// quickKilled is the part of the kit the slow suite kills mid-ingest
// without PAKTON_BOMBS=1.
const quickKilled = `^(odt-paragraph-60mb|rtf-hex-body|doc-runs|msg-shared-stream|txt-definitions-20mb)$`

// testDeadline is when a test must stop starting work: limit from now, or
// a minute before "go test -timeout" would panic, whichever comes first.
func testDeadline(t *testing.T, limit time.Duration) time.Time {
	d := time.Now().Add(limit)
	if td, ok := t.Deadline(); ok && td.Add(-time.Minute).Before(d) {
		d = td.Add(-time.Minute)
	}
	return d
}

// outcome says what an ingest run did with its file: "ingested" (with
// how many of an e-mail's documents were refused, and the first reason),
// "unchanged" (stored before, as after a killed run that had finished
// storing), "refused: <reason>", or how it failed otherwise.
func (r childRun) outcome() string {
	if r.killed != "" {
		return "killed: " + r.killed
	}
	var added, replaced, unchanged, skipped, failed int
	for _, l := range strings.Split(r.out, "\n") {
		if _, counts, ok := strings.Cut(l, "s: "); ok && strings.Contains(l, " files in ") {
			fmt.Sscanf(counts, "%d added, %d replaced, %d unchanged, %d skipped, %d failed", &added, &replaced, &unchanged, &skipped, &failed)
			break
		}
	}
	reason := ""
	for _, l := range strings.Split(r.out, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "failed "); ok {
			if _, why, ok := strings.Cut(rest, ": "); ok {
				reason = why
				break
			}
		}
	}
	stored := "ingested"
	if added+replaced == 0 {
		stored = "unchanged"
	}
	switch {
	case added+replaced+unchanged > 0 && failed == 0:
		return stored
	case added+replaced+unchanged > 0:
		return fmt.Sprintf("%s, %d of its documents refused: %s", stored, failed, reason)
	case reason != "":
		return "refused: " + reason
	}
	return fmt.Sprintf("exit %d: %s", r.exit, lastLine(r.err))
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// TestBombKit ingests cases of the bomb kit (internal/parse/bombtest)
// with "pakton ingest" into a fresh store, each in a child process whose
// peak resident memory and wall time it measures, and fails when a case
// passes 1 GiB or 60 s, is neither stored nor refused with a reason, is
// refused when it must be stored (or stored when it must be refused), or
// leaves a store that does not read back whole. A watchdog kills a child
// past PAKTON_BOMB_CEILING_MB (default 3072) or PAKTON_BOMB_TIMEOUT
// (default 2m), so an unbounded case is reported rather than taking the
// machine, and the test stops starting cases after 12 minutes. The slow
// suite (PAKTON_SLOW=1) ingests the costliest case of each format, about
// two minutes; PAKTON_BOMBS=1 ingests every case (about five);
// PAKTON_BOMB selects cases by a regular expression.
//
//	PAKTON_SLOW=1 PAKTON_BOMBS=1 go test ./cmd/pakton/ -run 'TestBombKit$' -v -timeout 30m
func TestBombKit(t *testing.T) {
	if os.Getenv("PAKTON_SLOW") != "1" {
		t.Skip("set PAKTON_SLOW=1 to ingest the bomb kit and measure each case")
	}
	ceiling := int64(3072) << 20
	if v := os.Getenv("PAKTON_BOMB_CEILING_MB"); v != "" {
		var mb int64
		fmt.Sscan(v, &mb)
		ceiling = mb << 20
	}
	limit := 2 * time.Minute
	if v := os.Getenv("PAKTON_BOMB_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatal(err)
		}
		limit = d
	}
	deadline := testDeadline(t, 12*time.Minute)
	var table []string
	for _, c := range kitCases(quickKit, "") {
		left := time.Until(deadline)
		if left <= 0 {
			t.Errorf("%s and the cases after it not run: the test passed its deadline", c.Name)
			break
		}
		t.Run(c.Name, func(t *testing.T) {
			dir := t.TempDir()
			path, err := c.WriteFile(dir)
			if err != nil {
				t.Fatal(err)
			}
			fi, _ := os.Stat(path)
			st := filepath.Join(dir, "store")
			r := runWatched(t, ceiling, min(limit, left), nil, "ingest", "-q", "--store", st, path)
			got := r.outcome()
			line := fmt.Sprintf("| %s | %s | %d MiB | %d MiB | %.1f s | %s |", c.Name, size(fi.Size()), r.peak>>20, r.group>>20, r.wall.Seconds(), got)
			table = append(table, line)
			t.Log(line)
			if r.peak > bombMaxRSS || r.group > bombMaxRSS {
				t.Errorf("peak resident memory %d MiB (%d MiB with the tools it ran), want ≤ %d MiB", r.peak>>20, r.group>>20, bombMaxRSS>>20)
			}
			if r.wall > bombMaxTime {
				t.Errorf("took %s, want ≤ %s", r.wall.Round(time.Second), bombMaxTime)
			}
			switch {
			case strings.HasPrefix(got, "ingested"):
				if c.Want == bombtest.Refuse {
					t.Errorf("ingested, want it refused")
				}
			case strings.HasPrefix(got, "refused: "):
				if c.Want == bombtest.Ingest {
					t.Errorf("%s, want it ingested", got)
				}
			default:
				t.Errorf("neither ingested nor refused with a reason: %s\nstderr: %s", got, r.err)
			}
			if r.killed == "" {
				checkStoreWhole(t, st)
			}
		})
	}
	t.Logf("\n| case | file | peak RSS | with its tools | time | outcome |\n|---|---|---|---|---|---|\n%s", strings.Join(table, "\n"))
}

// size formats a file size.
func size(n int64) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%d MB", n/1e6)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	default:
		return fmt.Sprintf("%d KB", (n+999)/1000)
	}
}

// checkStoreWhole reopens a store and reads every document back.
func checkStoreWhole(t *testing.T, dir string) {
	t.Helper()
	if ok, _ := store.Exists(dir); !ok {
		return
	}
	st, err := store.Open(dir)
	if err != nil {
		t.Errorf("reopen the store: %v", err)
		return
	}
	defer st.Close()
	ctx := context.Background()
	cols, err := st.Collections(ctx)
	if err != nil {
		t.Errorf("collections: %v", err)
		return
	}
	for _, col := range cols {
		infos, err := st.List(ctx, col.Name)
		if err != nil {
			t.Errorf("list %s: %v", col.Name, err)
			continue
		}
		for _, in := range infos {
			if _, err := st.Get(ctx, col.Name, in.ID); err != nil {
				t.Errorf("%s does not read back: %v", in.Name, err)
			}
		}
	}
}

// TestBombKitKilled kills "pakton ingest" with SIGKILL in the middle of
// every case of the bomb kit, ingested into a store that already holds a
// contract, then reopens the store and checks that nothing is
// half-written: every document reads back whole (checksums verified), the
// contract is still there, each document has one version directory and
// no temporary files are left; then the same ingest, run to its end,
// finishes. The kill comes after a delay drawn for each case from
// [0.2 s, 4 s) (seeded by PAKTON_BOMB_SEED, logged), so it lands in reading,
// analyzing or storing. The slow suite (PAKTON_SLOW=1) kills five of the
// costliest cases, about a minute; PAKTON_BOMBS=1 every case; PAKTON_BOMB
// selects cases. The test stops starting cases after 10 minutes.
//
//	PAKTON_SLOW=1 PAKTON_BOMBS=1 go test ./cmd/pakton/ -run TestBombKitKilled -v -timeout 30m
func TestBombKitKilled(t *testing.T) {
	if os.Getenv("PAKTON_SLOW") != "1" {
		t.Skip("set PAKTON_SLOW=1 to kill ingests of the bomb kit and check the store")
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("PAKTON_BOMB_SEED"); v != "" {
		fmt.Sscan(v, &seed)
	}
	t.Logf("seed %d (PAKTON_BOMB_SEED)", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	deadline := testDeadline(t, 10*time.Minute)
	for _, c := range kitCases(quickKilled, "") {
		if time.Until(deadline) <= 0 {
			t.Errorf("%s and the cases after it not run: the test passed its deadline", c.Name)
			break
		}
		delay := 200*time.Millisecond + time.Duration(rng.Int64N(int64(3800*time.Millisecond)))
		t.Run(c.Name, func(t *testing.T) {
			dir := t.TempDir()
			st := filepath.Join(dir, "store")
			good := filepath.Join(dir, "good.txt")
			if err := os.WriteFile(good, []byte("SUPPLY AGREEMENT\n\n1. Term\n\nThis Agreement lasts five years.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if r := runWatched(t, 2<<30, 2*time.Minute, nil, "ingest", "-q", "--store", st, good); r.exit != 0 {
				t.Fatalf("ingest the good contract: %s\n%s", r.outcome(), r.err)
			}
			path, err := c.WriteFile(dir)
			if err != nil {
				t.Fatal(err)
			}
			r := runWatched(t, 2<<30, delay, nil, "ingest", "-q", "--store", st, path)
			t.Logf("killed after %s: %s", delay.Round(time.Millisecond), r.outcome())
			checkStoreAfterKill(t, st, "good.txt")
			again := runWatched(t, 2<<30, 2*time.Minute, nil, "ingest", "-q", "--store", st, path)
			if got := again.outcome(); !strings.HasPrefix(got, "ingested") && !strings.HasPrefix(got, "unchanged") && !strings.HasPrefix(got, "refused: ") {
				t.Errorf("ingest after the kill: %s\n%s", got, again.err)
			}
			checkStoreAfterKill(t, st, "good.txt")
		})
	}
}

// checkStoreAfterKill reopens a store a killed process wrote and checks
// that it holds only whole documents (among them want, when given): each
// reads back, each collection has one version directory per document and
// no temporary files are left.
func checkStoreAfterKill(t *testing.T, dir, want string) {
	t.Helper()
	checkStoreWhole(t, dir)
	s, err := store.Open(dir)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	ctx := context.Background()
	cols, err := s.Collections(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := want == ""
	for _, col := range cols {
		infos, err := s.List(ctx, col.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range infos {
			found = found || in.Name == want
		}
		ents, err := os.ReadDir(filepath.Join(dir, "collections", col.Name, "docs"))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if len(ents) != len(infos) {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Errorf("collection %s: %d directories for %d documents: %v", col.Name, len(ents), len(infos), names)
		}
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), atomicfile.TempPrefix) {
				t.Errorf("temporary %s left in collection %s", e.Name(), col.Name)
			}
		}
	}
	if !found {
		t.Errorf("%s is gone from the store", want)
	}
}
